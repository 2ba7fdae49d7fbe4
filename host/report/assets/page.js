// The report's script: it draws each section from the JSON embedded in
// #report-data (the same objects the CLI's --json flags print) and makes
// the diagrams and charts answer clicks and hovers. It loads nothing.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("report-data").textContent);
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  };
  const num = (n) => (n == null ? "" : Number(n).toLocaleString("en-US"));
  const badge = (text, kind) => el("span", { class: "badge " + (kind || ""), text });
  const table = (head, rows, numeric) => {
    const t = el("table");
    t.append(el("tr", {}, ...head.map((h, i) => el("th", { class: numeric && numeric[i] ? "num" : "", text: h }))));
    for (const r of rows) t.append(el("tr", {}, ...r.map((c, i) => {
      const td = el("td", { class: numeric && numeric[i] ? "num" : "" });
      if (c instanceof Node) td.append(c); else td.textContent = c == null ? "" : String(c);
      return td;
    })));
    return t;
  };
  const value = (v) => (v === null || v === undefined ? "null" : typeof v === "object" ? JSON.stringify(v) : String(v));
  const pre = (text, copyLabel) => {
    const p = el("pre", { text });
    if (!copyLabel) return p;
    const b = el("button", { class: "copy", type: "button", text: "copy " + copyLabel });
    b.addEventListener("click", () => { if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {}); });
    return el("div", {}, b, p);
  };

  // Header.
  const pol = D.policy || {};
  const sum = pol.summary || {};
  document.title = "resetpolicy report: " + (sum.name || "policy");
  $("#title").textContent = "resetpolicy report: " + (sum.name || "policy");
  const h = D.header || {};
  $("#meta").append(
    el("div", { text: "Made " + h.generated + " by " + h.version }),
    el("div", { text: "Command: " + (h.command || []).join(" ") }),
    el("div", { text: "In force: " + (h.in_force || "") }),
    el("div", { text: "Inputs: " + ((h.inputs || []).join(", ") || "none") }));

  // 1. The policy.
  (function () {
    const body = $("#policy .body");
    body.append(el("p", { text: sum.description || "" }));
    body.append(el("p", {}, "Sources: ", el("code", { text: (pol.sources || []).join(", ") }),
      pol.uses ? el("span", { text: " — uses the built-in " + pol.uses }) : null));
    body.append(el("h3", { text: "Params in force" }));
    body.append(table(["param", "value", "default", "origin", "description"],
      (sum.params || []).map((p) => [el("code", { text: p.name }), value(p.value), value(p.default), p.origin, p.description || ""])));
    const rules = pol.rules || [];
    if (pol.uses) {
      const counts = {};
      for (const r of rules) counts[r.origin || "own"] = (counts[r.origin || "own"] || 0) + 1;
      body.append(el("h3", { text: "Composition" }));
      body.append(table(["origin", "rules"], Object.entries(counts).map(([k, v]) => [k, v]).concat([["disabled", (pol.disabled || []).length]]), [false, true]));
      if ((pol.disabled || []).length) body.append(el("p", { text: "Disabled: " + pol.disabled.join(", ") }));
    }
    body.append(el("h3", { text: "Rules (" + rules.length + ")" }));
    const det = el("details", {}, el("summary", { text: "every rule, in file order" }));
    det.append(table(["rule", "group", "on", "from", "to", "effects", "origin"],
      rules.map((r) => [el("code", { text: r.name }), r.group, r.on.join(", "), r.from || "", r.to || "", (r.effects || []).join(", "), r.origin || ""])));
    body.append(det);
    const surface = (title, xs, withText) => {
      body.append(el("h3", { text: title + " (" + xs.length + ")" }));
      if (!xs.length) { body.append(el("p", { class: "empty", text: "none" })); return; }
      body.append(table(withText ? ["name", "text"] : ["name", "description"],
        xs.map((x) => [el("code", { text: x.name }), withText ? el("details", {}, el("summary", { text: (x.text || "").split("\n")[0].slice(0, 90) }), pre(x.text || "")) : x.description || ""])));
    };
    surface("Tools the model sees", pol.tools || []);
    surface("Commands", pol.commands || []);
    surface("Messages", pol.messages || [], true);
  })();

  // 2. Diagrams.
  const ruleByName = {};
  for (const r of pol.rules || []) ruleByName[r.name] = r;
  (function () {
    const body = $("#diagram .body");
    const ds = D.diagrams || [];
    if (!ds.length) body.append(el("p", { class: "empty", text: "The policy has no enum slot to draw." }));
    ds.forEach((d, i) => {
      body.append(el("h3", { text: d.title }));
      if (d.error) { body.append(el("p", { class: "empty", text: d.error })); return; }
      const drawing = el("div", { class: "drawing", id: "diagram-" + i });
      drawing.innerHTML = d.svg || "";
      const box = el("div", { class: "rulebox", id: "rulebox-" + i }, el("span", { class: "muted", text: "Click a state or an edge." }));
      body.append(el("div", { class: "diagram" }, drawing, box));
      drawing.addEventListener("click", (ev) => {
        const g = ev.target.closest("g.state, g.edge");
        if (!g) return;
        drawing.querySelectorAll("g.selected").forEach((x) => x.classList.remove("selected"));
        g.classList.add("selected");
        showRules(d, g, box);
      });
    });
  })();
  // showRules lists the rules behind a clicked state (every move out of it
  // and its loops) or edge, with their guards.
  function showRules(d, g, box) {
    box.textContent = "";
    let edges;
    if (g.classList.contains("state")) {
      const id = g.dataset.state;
      box.append(el("h3", { text: "state " + (id === "*" ? "every state" : id) }));
      edges = (d.edges || []).filter((e) => e.from === id);
    } else {
      const a = g.dataset.from, b = g.dataset.to;
      box.append(el("h3", { text: a === b ? a + " (without moving)" : a + " → " + b }));
      edges = (d.edges || []).filter((e) => e.from === a && e.to === b);
    }
    const moves = [].concat(...edges.map((e) => e.moves.map((m) => Object.assign({ to: e.to }, m))));
    if (!moves.length) box.append(el("p", { class: "empty", text: "No rule fires here." }));
    for (const m of moves) {
      for (const name of m.rules) {
        const r = ruleByName[name];
        const div = el("div", { class: "rule" }, el("b", { text: name }), el("span", { class: "muted", text: "  on " + m.event + " → " + m.to }));
        if (r) {
          div.append(el("div", { text: (r.from ? "from " + r.from : "from any state") + (r.to ? " · to " + r.to : "") }));
          div.append(el("div", {}, "when ", el("code", { text: r.when || "always" })));
          if ((r.effects || []).length) div.append(el("div", { text: "effects: " + r.effects.join(", ") }));
          div.append(el("div", { class: "muted", text: r.file + ":" + r.line }));
        }
        box.append(div);
      }
    }
  }

  // 3. What is proven.
  (function () {
    const body = $("#proof .body");
    const v = D.verify;
    if (!v) { body.append(el("p", { class: "empty", text: D.verify_error || "verify did not run." })); $("#nav-proof").textContent = "?"; return; }
    const findings = v.findings || [];
    const ok = findings.length === 0 && !v.incomplete;
    $("#nav-proof").textContent = ok ? "holds" : findings.length ? findings.length + " failed" : "incomplete";
    $("#nav-proof").classList.add(ok ? "ok" : "bad");
    body.append(el("p", {}, ok ? badge("every property holds", "ok") : badge(findings.length ? "violated" : "incomplete", "bad"),
      el("span", { text: " explored " + num(v.states) + " states and " + num(v.transitions) + " transitions" + (v.bounded ? ", bounded" : ", until no new state") + " in " + (v.seconds || 0).toFixed(2) + " s" })));
    if (v.bound) body.append(el("p", { class: "caveat", text: "The exploration stopped at its " + v.bound.kind + " bound (" + v.bound.limit + "): every result below holds only within it." }));
    if (v.params) body.append(el("p", {}, "Proven for the param values ", el("code", { text: Object.entries(v.params).map(([k, x]) => k + "=" + value(x)).join(", ") }),
      el("span", { text: " only (resetpolicy verify --params range explores each over the range its validation allows)" }),
      (v.exact_slots || []).length ? el("span", { text: "; slots kept exact: " + v.exact_slots.join(", ") }) : null));
    const rows = (v.holds || []).map((n) => [badge(v.bounded ? "bounded" : "holds", v.bounded ? "warn" : "ok"), n, ""]);
    for (const f of findings) rows.push([badge("fails", "bad"), f.name, f.message]);
    for (const e of v.expected || []) rows.push([badge("expected", "warn"), e, ""]);
    body.append(table(["result", "property", "why"], rows));
    for (const f of findings) {
      body.append(el("h3", { text: "Counterexample: " + f.name }));
      body.append(el("p", { text: f.message }));
      if ((f.trace || []).length) {
        const ol = el("ol", { class: "timeline" });
        f.trace.forEach((s, i) => {
          const ev = Object.assign({}, s.event);
          const name = ev.event; delete ev.event;
          ol.append(el("li", {}, el("span", { class: "ev", text: (i + 1) + ". " + name }), el("code", { text: " " + JSON.stringify(ev) }),
            el("div", { class: "muted", text: "rules: " + ((s.rules || []).join(", ") || "none") + " · effects: " + ((s.effects || []).map((x) => x.effect).join(", ") || "none") + (s.error ? " · error: " + s.error : "") })));
        });
        body.append(ol);
      }
      if (v.eval_inputs && v.eval_inputs[f.name]) body.append(el("h3", { text: "eval input" }), pre(v.eval_inputs[f.name], "eval lines"));
      if (v.run_blocks && v.run_blocks[f.name]) body.append(el("h3", { text: "run block" }), pre(v.run_blocks[f.name], "run block"));
    }
    if ((v.warnings || []).length) {
      body.append(el("h3", { text: "Warnings (" + v.warnings.length + ")" }));
      body.append(table(["kind", "name", "message"], v.warnings.map((w) => [w.kind, w.name, w.message])));
    }
    if (v.hidden_warnings) body.append(el("p", { class: "muted", text: v.hidden_warnings + " file-order warnings between the built-in's own rules are not listed (resetpolicy verify --all-warnings lists them)." }));
    body.append(el("h3", { text: "What was explored: the facts and how each was sampled" }));
    body.append(table(["fact", "how", "values"], (v.sampling || []).map((s) => [el("code", { text: s.fact }), s.how, (s.values || []).map(value).join(", ")])));
  })();

  // 4. What is tested.
  (function () {
    const body = $("#tests .body");
    const t = D.tests;
    if (!t) { body.append(el("p", { class: "empty", text: "No test file names this policy." })); $("#nav-tests").textContent = "none"; return; }
    const good = t.failed === 0;
    const own = (t.results || []).length > 0;
    $("#nav-tests").textContent = own ? t.passed + "/" + (t.passed + t.failed) : "inherited";
    $("#nav-tests").classList.add(good ? "ok" : "bad");
    if (own) body.append(el("p", {}, badge(t.passed + " passed", "ok"), " ", badge(t.failed + " failed", t.failed ? "bad" : ""),
      el("span", { class: "muted", text: "  files: " + (D.test_files || []).join(", ") })));
    else body.append(el("p", { class: "muted", text: "No test file of its own: the rules it inherits unchanged are tested by the built-in's own tests." }));
    for (const c of t.coverage || []) {
      body.append(el("h3", { text: "Rule coverage of " + c.name + ": " + c.fired + " of " + c.rules + " rules fired" }));
      const comp = c.composed;
      if (comp && comp.inherited) body.append(el("p", { class: "muted", text: comp.inherited + " of them inherited, fired by " + comp.base_tests + " (the built-in's own tests)" }));
      if ((c.unfired || []).length) body.append(el("p", {}, "No run fires: ", ...c.unfired.map((r) => el("code", { text: r + " " }))));
      else body.append(el("p", { class: "muted", text: "Every rule is fired by some run." }));
    }
    const failed = (t.results || []).filter((r) => !r.passed);
    if (failed.length) {
      body.append(el("h3", { text: "Failing runs" }));
      body.append(table(["run", "where", "want", "got"], [].concat(...failed.map((r) => (r.failures || [{}]).map((f) => [r.name, f.where || "", f.want || f.what || "", f.got || f.text || ""])))));
    }
    const det = el("details", {}, el("summary", { text: "every run (" + (t.results || []).length + ")" }));
    det.append(table(["result", "run"], (t.results || []).map((r) => [r.passed ? badge("pass", "ok") : badge("fail", "bad"), r.name])));
    body.append(det);
  })();

  // Session files are shown below the directory they all share.
  const shared = (function () {
    const files = ((D.replay || {}).sessions || []).map((s) => s.file);
    if (files.length < 2) return "";
    let p = files[0].slice(0, files[0].lastIndexOf("/") + 1);
    for (const f of files) while (p && !f.startsWith(p)) p = p.slice(0, p.slice(0, -1).lastIndexOf("/") + 1);
    return p;
  })();
  const shortName = (s) => s.name || (shared && s.file.startsWith(shared) ? s.file.slice(shared.length) : s.file);

  // 5. Sessions.
  (function () {
    const body = $("#sessions .body");
    const R = D.replay;
    if (!R) { body.append(el("p", { class: "empty", text: "No sessions were given (resetpolicy report --sessions DIR)." })); return; }
    for (const c of R.caveats || []) body.append(el("p", { class: "caveat", text: c }));
    const C = R.corpus || [];
    const row = (label, f) => [label].concat(C.map(f));
    const quant = (c) => (c.least_runway_at_warning ? num(c.least_runway_at_warning.min) + " / " + num(c.least_runway_at_warning.p50) + " / " + num(c.least_runway_at_warning.max) : "—");
    body.append(el("h3", { text: "The corpus" }));
    body.append(table(["figure"].concat(C.map((c) => c.setting)), [
      row("sessions", (c) => num(c.sessions)), row("turns", (c) => num(c.turns)), row("events", (c) => num(c.events)),
      row("resets", (c) => num(c.resets)), row("checkpoints", (c) => num(c.checkpoints)),
      row("sessions warned", (c) => num(c.sessions_warned)), row("sessions at the hard reserve", (c) => num(c.sessions_at_hard_reserve)),
      row("least runway at a warning: min / median / max", quant),
      row("peak context", (c) => num(c.peak_tokens) + " (" + c.peak_kind + ")"),
      row("sessions the policy took off the record", (c) => num(c.sessions_left_record)),
      row("events rejected", (c) => num(c.events_rejected)), row("file problems", (c) => num(c.file_errors)),
    ], [false].concat(C.map(() => true))));
    C.forEach((c) => {
      if (!(c.runway_bins || []).length) return;
      body.append(el("h3", { text: "Least runway at a warning, per warned session (" + c.setting + ")" + " — " + Object.entries(c.runway_kinds || {}).map(([k, n]) => n + " " + k).join(", ") }));
      const bars = el("div", { class: "bars" });
      const top = Math.max(...c.runway_bins.map((b) => b.count));
      for (const b of c.runway_bins) {
        bars.append(el("span", { text: num(b.from) + " – " + num(b.to) }), el("div", { class: "bar", style: "width:" + (100 * b.count / top).toFixed(1) + "%" }), el("span", { text: String(b.count) }));
      }
      body.append(bars);
    });
    if ((R.failed || []).length) body.append(el("h3", { text: "Files not replayed" }), pre(R.failed.join("\n")));
    body.append(el("h3", { text: "Sessions (" + R.sessions.length + "; " + R.charted + " with a chart: click one)" }));
    if (shared) body.append(el("p", { class: "muted", text: "below " + shared }));
    const chart = el("div", { id: "session-chart" });
    // One group of columns per compared setting, headed in its chart
    // colour: what each setting did on each session.
    const t = el("table", { id: "session-table" });
    const S = R.settings || [];
    const cols = ["peak (of window)", "resets", "checkpoints", "reminded at turn", "warned at turn", "hard reserve at turn"];
    const swatch = (k) => el("span", { class: "swatch", style: "background:" + ((R.colours || [])[k] || "#555") });
    t.append(el("tr", {}, el("th", { rowspan: "2", text: "session" }), el("th", { rowspan: "2", text: "turns" }),
      ...S.map((label, k) => el("th", { colspan: String(cols.length), class: "setting", "data-s": String(k) }, swatch(k), label)),
      el("th", { rowspan: "2", text: "chart" })));
    t.append(el("tr", {}, ...[].concat(...S.map(() => cols.map((x) => el("th", { class: "num", text: x }))))));
    const at = (turn) => (turn ? num(turn) : "");
    R.sessions.forEach((s, i) => {
      const cells = [].concat(...S.map((_, k) => {
        const f = (s.per_setting || [])[k] || {};
        return [num(f.peak_tokens) + " (" + (100 * (f.peak_share || 0)).toFixed(0) + "%)", num(f.resets), num(f.checkpoints), at(f.first_reminder_turn), at(f.first_warning_turn), at(f.first_hard_reserve_turn)]
          .map((text) => el("td", { class: "num", "data-s": String(k), text }));
      }));
      const tr = el("tr", { class: s.chart ? "session" : "", "data-i": String(i) },
        el("td", {}, el("code", { text: shortName(s), title: s.file })), el("td", { class: "num", text: num(s.turns) }),
        ...cells, el("td", { text: s.chart ? "▸ open" : "listed" }));
      if (s.chart) tr.addEventListener("click", () => openSession(i, tr, chart));
      t.append(tr);
    });
    body.append(chart, el("div", { class: "scroll" }, t));
    const first = t.querySelector('tr.session[data-i="' + (R.first_chart || 0) + '"]') || t.querySelector("tr.session");
    if (first) openSession(Number(first.dataset.i), first, chart);
  })();

  function openSession(i, tr, box) {
    const s = D.replay.sessions[i];
    document.querySelectorAll("tr.session.open").forEach((x) => x.classList.remove("open"));
    tr.classList.add("open");
    box.textContent = "";
    box.append(el("h3", { text: shortName(s), title: s.file }));
    const reps = s.reports || [];
    box.append(el("p", { class: "muted", text: reps.map((r) => r.setting || r.policy).map((l, k) => l + ": window " + num(reps[k].context_window) + " (" + reps[k].context_window_from + "), " + reps[k].resets + " resets, " + reps[k].checkpoints + " checkpoints" + (reps[k].diverged_at_turn ? ", leaves the record at turn " + reps[k].diverged_at_turn : "")).join(" · ") }));
    const holder = el("div", { class: "chart-holder" });
    holder.innerHTML = s.chart;
    box.append(holder);
    const tip = $("#tooltip");
    holder.querySelectorAll(".decision").forEach((c) => {
      c.addEventListener("mouseenter", (ev) => {
        const rep = reps[Number(c.dataset.s)] || {};
        const d = (rep.decisions || [])[Number(c.dataset.d)];
        if (!d) return;
        tip.textContent = (rep.setting || rep.policy) + "\nturn " + d.turn + " · " + d.event + " · " + num(d.tokens) + " tokens (" + (d.kind || (d.projected ? "projected" : "measured")) + ")\n" + ((d.kinds || []).join(", ") || "routine") + "\nrules: " + d.rules.join(", ") + "\neffects: " + (d.effects || []).map((e) => e.effect).join(", ");
        tip.style.display = "block";
        tip.style.left = ev.clientX + 12 + "px";
        tip.style.top = ev.clientY + 12 + "px";
      });
      c.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    });
  }
})();
