// The plugin's state for one opencode process: the engine, the policy's
// surface, and one record per session. Every event of a session is handled
// in order (a queue per session), so a turn's end reported by opencode's
// event bus and the request transform of the next step agree on what was
// already decided.

import type { PluginInput } from "@opencode-ai/plugin";
import type { Message, Part } from "@opencode-ai/sdk";
import { Engine, EngineDown, errorText } from "./engine.ts";
import { locateEngine } from "./install.ts";
import { type Decision, type Effect, HOST, type InitializeResult, META } from "./protocol.ts";
import { activeWindow, boundaryOf, latestBoundary, synthetic, toolResults, type Unwritten, usageTokens, type WithParts, windowTokens, withUnwritten } from "./window.ts";

type Client = PluginInput["client"];

export interface Draft {
	/** The message the hidden text follows in the request it was added to. */
	after: string;
	name: string;
	text: string;
	window: string;
}

export interface SessionState {
	id: string;
	windowId: string;
	started: boolean;
	/** Completed assistant messages already reported as turn_end. */
	seen: Set<string>;
	/** Tool parts with a result, per assistant message, from part events. */
	tools: Map<string, number>;
	queue: Promise<unknown>;
	drafts: Draft[];
	/** Committed messages written when the run settles (window.ts, Unwritten). */
	unwritten: Unwritten[];
	busy: boolean;
	lastOutcome: "completed" | "error" | "aborted";
	lastAssistant: string | undefined;
	lastFinish: string | undefined;
	/** A reset asked to continue once the run has settled and the boundary is written. */
	continueAfterSettle: boolean;
	model: { providerID: string; modelID: string } | undefined;
}

/** The contract's defaults, for what opencode does not say. */
const DEFAULT_CONTEXT = 200000;
const DEFAULT_RESERVE = 16384;

export class OpencodeHost {
	readonly client: Client;
	readonly directory: string;
	engine: Engine | undefined;
	init: InitializeResult | undefined;
	/** Why the policy does not run (the engine is missing or down, or the policy is refused here). */
	off: string | undefined;
	/** The user's own compaction.auto, before the plugin turned it off. */
	autoCompaction = true;
	reserve = DEFAULT_RESERVE;
	private readonly sessions = new Map<string, SessionState>();
	private readonly contextWindows = new Map<string, number>();
	/** Sessions that are not the user's: the plugin's summary sessions, opencode's subagents. */
	readonly children = new Set<string>();
	private downShown = false;

	constructor(client: Client, directory: string) {
		this.client = client;
		this.directory = directory;
	}

	/** Finds (or builds) the engine and loads the project's policy. */
	async start(): Promise<void> {
		// opencode has no status line: the build's progress goes to its log,
		// a line every few seconds at most (a build compiles about a hundred packages).
		let logged = 0;
		const found = await locateEngine({
			say: (t) => this.say(t, "info"),
			status: (t) => {
				if (t === undefined || Date.now() - logged < 5000) return;
				logged = Date.now();
				void this.client.app.log({ body: { service: "resetpolicy", level: "info", message: t } }).catch(() => {});
			},
		});
		if ("problem" in found) {
			this.disable(`resetpolicy is off: ${found.problem}`);
			return;
		}
		if (found.built !== undefined) this.say(`resetpolicy: engine built in ${found.built.seconds.toFixed(0)} s: ${found.bin}`, "info");
		const engine = new Engine({
			bin: found.bin,
			timeoutMs: Number(process.env.RESETPOLICY_TIMEOUT_MS) || 10000,
			onDown: (reason) => this.down(reason),
		});
		this.engine = engine;
		engine.start();
		let init: InitializeResult;
		try {
			init = await this.initialize(engine);
		} catch (err) {
			if (!(err instanceof EngineDown)) this.disable(`resetpolicy is off: the policy could not be loaded (${errorText(err)}).`);
			return;
		}
		this.init = init;
		// A policy that failed to load, or is not for opencode, leaves the
		// built-in in force; the notice names the rules at their positions.
		if (init.error !== undefined && init.error !== "") this.say(init.error, "error");
		if ((init.hostGaps ?? 0) > 0) {
			const gaps = (init.diagnostics ?? []).filter((d) => d.severity === "warning" && d.summary.includes("opencode"));
			const shown = gaps.slice(0, 8).map((d) => `${d.file ?? ""}:${d.line ?? 0}:${d.column ?? 0}: ${d.detail ?? d.summary}`);
			if (gaps.length > shown.length) shown.push(`… and ${gaps.length - shown.length} more (resetpolicy check --host opencode)`);
			this.say(`resetpolicy: ${init.hostGaps} of ${init.policy.name}'s rules lean on what opencode cannot do, and never act here:\n${shown.join("\n")}`, "info");
		}
		this.say(
			`resetpolicy: policy ${init.policy.name} (${init.policy.origin}) decides this session's context window; opencode's automatic compaction is off while it does.`,
			"info",
		);
	}

	/**
	 * initialize, naming this host: the engine checks the policy against
	 * opencode's capabilities, and a policy not for opencode (new_context,
	 * whose resets happen inside Pi's compaction) is refused there with its
	 * position, the built-in staying in force.
	 */
	private initialize(engine: Engine): Promise<InitializeResult> {
		return engine.request<InitializeResult>("initialize", { projectDir: this.directory, trusted: true, host: HOST });
	}

	get active(): boolean {
		return this.off === undefined && this.init !== undefined && this.engine?.alive === true;
	}

	private disable(text: string): void {
		this.off = text;
		this.engine?.close();
		this.say(text, "error");
	}

	/** The engine went down: one notice, and the plugin passes everything through from here on. */
	private down(reason: string): void {
		this.off = `the policy engine stopped (${reason})`;
		if (this.downShown) return;
		this.downShown = true;
		this.say(
			`resetpolicy: the policy engine stopped (${reason}). No context reset happens in this opencode process from now on; opencode keeps working and the session history is untouched. Restart opencode to bring the policy back.`,
			"error",
		);
	}

	/** A notice for the user: opencode's log, and a toast where a TUI shows one. */
	say(text: string, level: "info" | "warning" | "error"): void {
		const logLevel = level === "warning" ? "warn" : level;
		void this.client.app.log({ body: { service: "resetpolicy", level: logLevel, message: text } }).catch(() => {});
		void this.client.tui.showToast({ body: { message: text, variant: level } }).catch(() => {});
	}

	session(id: string): SessionState {
		let s = this.sessions.get(id);
		if (s === undefined) {
			s = {
				id,
				windowId: "w1",
				started: false,
				seen: new Set(),
				tools: new Map(),
				queue: Promise.resolve(),
				drafts: [],
				unwritten: [],
				busy: false,
				lastOutcome: "completed",
				lastAssistant: undefined,
				lastFinish: undefined,
				continueAfterSettle: false,
				model: undefined,
			};
			this.sessions.set(id, s);
		}
		return s;
	}

	/** Runs fn after everything queued for the session; a failure is shown, never thrown into opencode. */
	serial<T>(s: SessionState, fn: () => Promise<T>): Promise<T | undefined> {
		const run = s.queue.then(async () => {
			if (!this.active) return undefined;
			try {
				return await fn();
			} catch (err) {
				if (!(err instanceof EngineDown)) this.say(`resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
				return undefined;
			}
		});
		s.queue = run.catch(() => {});
		return run;
	}

	async decide(s: SessionState, event: string, facts: Record<string, unknown>): Promise<Decision> {
		const engine = this.engine;
		if (engine === undefined) throw new EngineDown("the engine was not started");
		return engine.request<Decision>("decide", {
			session: s.id,
			event: {
				event,
				window_id: s.windowId,
				now_ms: Date.now(),
				auto_compaction: this.autoCompaction,
				reserve: this.reserve,
				context_window: this.contextWindows.get(modelKey(s.model)) ?? DEFAULT_CONTEXT,
				idle: !s.busy,
				...facts,
			},
		});
	}

	/** The context window of the session's model, from opencode's provider list (once per model). */
	async learnModel(s: SessionState, msgs: WithParts[]): Promise<boolean> {
		const user = [...msgs].reverse().find((m) => m.info.role === "user")?.info;
		const before = modelKey(s.model);
		if (user?.role === "user") s.model = { providerID: user.model.providerID, modelID: user.model.modelID };
		const key = modelKey(s.model);
		const changed = before !== "" && key !== before;
		if (s.model === undefined || this.contextWindows.has(key)) return changed;
		try {
			const r = await this.client.config.providers();
			for (const p of r.data?.providers ?? []) {
				for (const [id, m] of Object.entries(p.models)) {
					if (m.limit?.context) this.contextWindows.set(`${p.id}/${id}`, m.limit.context);
				}
			}
		} catch {
			// the contract's default stands
		}
		if (!this.contextWindows.has(key)) this.contextWindows.set(key, DEFAULT_CONTEXT);
		return changed;
	}

	/** session_start, once per session this process sees: new when opencode just created it, else resume. */
	async ensureStarted(s: SessionState, reason: "new" | "resume", msgs?: WithParts[]): Promise<void> {
		if (s.started) return;
		s.started = true;
		if (msgs !== undefined) {
			const b = latestBoundary(msgs);
			if (b !== undefined) s.windowId = b.meta.boundary;
			for (const m of msgs) if (m.info.role === "assistant" && m.info.time.completed !== undefined) s.seen.add(m.info.id);
		}
		const d = await this.decide(s, "session_start", { reason });
		await this.apply(s, d.effects, { site: "other" });
	}

	/** The request transform: reports earlier turns not yet reported, the request, and sends only the active window. */
	async onRequest(msgs: WithParts[]): Promise<WithParts[] | undefined> {
		const sid = msgs[0]?.info.sessionID;
		if (sid === undefined || this.children.has(sid)) return undefined;
		const s = this.session(sid);
		if (!this.active) return activeWindow(withUnwritten(msgs, s.unwritten)).messages;
		const out = await this.serial(s, async () => {
			const changed = await this.learnModel(s, msgs);
			await this.ensureStarted(s, "resume", msgs);
			if (changed) {
				// The user picked another model for this prompt: its context window is the one in force.
				const d = await this.decide(s, "model_select", { model: s.model?.modelID ?? "" });
				await this.apply(s, d.effects, { site: "other" });
			}
			for (const m of msgs) {
				if (m.info.role === "assistant" && m.info.time.completed !== undefined && !s.seen.has(m.info.id)) {
					await this.turnEnd(s, m.info, toolResults(m.parts));
				}
			}
			const w = activeWindow(withUnwritten(msgs, s.unwritten));
			const userInput = w.windowId !== undefined && w.messages.slice(1).some((m) => m.info.role === "user" && !m.parts.every((p) => p.type !== "text" || p.synthetic === true));
			const d = await this.decide(s, "request", { tokens: windowTokens(w.messages), user_input: userInput, queued: false });
			const extra: WithParts[] = [];
			const ctx: Site = { site: "request", requestMessages: extra, window: w.messages };
			await this.apply(s, d.effects, ctx);
			return [...w.messages, ...extra];
		});
		return out ?? activeWindow(withUnwritten(msgs, s.unwritten)).messages;
	}

	/** turn_end for one completed (or failed, or aborted) assistant message. */
	async turnEnd(s: SessionState, info: Message, tools: number): Promise<void> {
		if (info.role !== "assistant" || s.seen.has(info.id)) return;
		s.seen.add(info.id);
		const outcome = info.error?.name === "MessageAbortedError" ? "aborted" : info.error !== undefined ? "error" : "completed";
		let error = "";
		if (outcome === "error") error = /context|too long|maximum.*tokens|overflow/i.test(JSON.stringify(info.error)) ? "overflow" : "other";
		s.lastOutcome = outcome;
		s.lastAssistant = info.id;
		s.lastFinish = info.finish;
		// Hidden request messages become durable at a completed turn; a
		// failed or aborted turn discards them.
		const drafts = s.drafts;
		s.drafts = [];
		if (outcome === "completed") {
			for (const dr of drafts) {
				if (dr.window === s.windowId) s.unwritten.push({ id: `${dr.after}_rq`, after: dr.after, texts: [dr.text], meta: { message: dr.name, window: dr.window } });
			}
		}
		const d = await this.decide(s, "turn_end", {
			outcome,
			error,
			synthetic_abort: false,
			tool_results: Math.max(tools, s.tools.get(info.id) ?? 0),
			tokens: usageTokens(info),
		});
		await this.apply(s, d.effects, { site: "turn_end", after: info.id, loopGoesOn: outcome === "completed" && info.finish === "tool-calls" });
	}

	/** The session went idle: the committed messages are written, then before_settle and settled. */
	async settle(s: SessionState): Promise<void> {
		// The bus may tell of the run's last message after it tells of the
		// idle session (an abort, a provider error): the stored messages
		// say how the run ended.
		const r = await this.client.session.messages({ path: { id: s.id } });
		for (const m of (r.data ?? []) as WithParts[]) {
			const info = m.info;
			if (info.role === "assistant" && (info.time.completed !== undefined || info.error !== undefined) && !s.seen.has(info.id)) {
				await this.turnEnd(s, info, toolResults(m.parts));
			}
		}
		await this.flush(s);
		const e = await this.decide(s, "agent_end", {});
		await this.apply(s, e.effects, { site: "other" });
		const d = await this.decide(s, "before_settle", { outcome: s.lastOutcome });
		await this.apply(s, d.effects, { site: "before_settle", after: s.lastAssistant, loopGoesOn: false });
		const d2 = await this.decide(s, "settled", { aborted: s.lastOutcome === "aborted" });
		await this.apply(s, d2.effects, { site: "other" });
		await this.flush(s);
		if (s.continueAfterSettle) {
			s.continueAfterSettle = false;
			await this.startTurn(s, this.init?.texts.continuation ?? "Continue.", { continuation: s.windowId });
		}
	}

	/** opencode disposes of the project's instance: every session this process served shuts down. */
	async shutdown(): Promise<void> {
		for (const s of this.sessions.values()) {
			if (!s.started) continue;
			await this.serial(s, async () => {
				await this.flush(s);
				const d = await this.decide(s, "session_shutdown", { reason: "exit" });
				await this.apply(s, d.effects, { site: "other" });
			});
		}
	}

	/** opencode compacted the session itself (the user's /compact): compact_done. */
	async compacted(s: SessionState): Promise<void> {
		const d = await this.decide(s, "compact_done", { reason: "manual", attempt: 0 });
		await this.apply(s, d.effects, { site: "other" });
	}

	/** Writes the committed messages into the session, in order. */
	async flush(s: SessionState): Promise<void> {
		while (s.unwritten.length > 0) {
			const u = s.unwritten[0]!;
			await this.write(s, u.id, u.texts.map((text, i) => (i === 0 ? { text, meta: u.meta } : { text })));
			s.unwritten.shift();
		}
	}

	/** Writes a user message that never starts a turn; its id places it right after the message it follows. */
	async write(s: SessionState, messageID: string, texts: { text: string; meta?: Record<string, unknown> }[]): Promise<void> {
		const r = await this.client.session.prompt({
			path: { id: s.id },
			body: {
				messageID,
				noReply: true,
				parts: texts.map((t) => ({ type: "text" as const, text: t.text, synthetic: true, ...(t.meta !== undefined ? { metadata: { [META]: t.meta } } : {}) })),
			},
		});
		if (r.error !== undefined) throw new Error(`writing to the session failed: ${JSON.stringify(r.error).slice(0, 300)}`);
	}

	/** Starts a turn with hidden text (a continuation, an injected message): queued behind a running one. */
	async startTurn(s: SessionState, text: string, meta: Record<string, unknown>): Promise<void> {
		const r = await this.client.session.promptAsync({
			path: { id: s.id },
			body: { parts: [{ type: "text", text, synthetic: true, metadata: { [META]: meta } }] },
		});
		if (r.error !== undefined) throw new Error(`starting a turn failed: ${JSON.stringify(r.error).slice(0, 300)}`);
	}

	text(name: string): string {
		return this.init?.surface.messages[name] ?? name;
	}

	/** Carries out effects in order. */
	async apply(s: SessionState, effects: Effect[], at: Site): Promise<void> {
		for (const ef of effects) {
			switch (ef.effect) {
				case "reply":
					at.reply = String(ef.text ?? "");
					break;
				case "notify": {
					const level = ef.level === "error" || ef.level === "warning" ? ef.level : "info";
					this.say(`resetpolicy: ${String(ef.text ?? "")}`, level);
					break;
				}
				case "inject": {
					const text = this.text(String(ef.message));
					if (ef.deliver === "request" && at.site === "request") {
						const last = at.window[at.window.length - 1];
						const after = last?.info.id ?? "msg";
						at.requestMessages.push(synthetic(at.window, `${after}_rq`, [text]));
						s.drafts.push({ after, name: String(ef.message), text, window: s.windowId });
					} else if (at.site === "command") {
						at.commandText = text;
					} else {
						await this.startTurn(s, text, { message: String(ef.message), window: s.windowId });
					}
					break;
				}
				case "commit_reset":
					await this.commitReset(s, ef.continue === true, ef.stop === true, at);
					break;
				case "continue":
					await this.startTurn(s, this.init?.texts.continuation ?? "Continue.", { continuation: s.windowId });
					break;
				case "stop":
					if (s.busy) await this.client.session.abort({ path: { id: s.id } });
					break;
				case "repair":
					// A boundary is one message written at once: there is no
					// half-written tail to complete.
					break;
				case "status":
					// opencode has no footer status a plugin can set.
					break;
				case "checkpoint":
					await this.checkpoint(s, ef.continue === true, Number(ef.attempt ?? 0), at);
					break;
				case "save_param":
				case "clear_param": {
					const method = ef.effect === "save_param" ? "saveParam" : "clearParam";
					const params = ef.effect === "save_param" ? { name: ef.name, value: ef.value } : { name: ef.name };
					try {
						await this.engine?.request(method, params);
					} catch (err) {
						if (err instanceof EngineDown) throw err;
						this.say(`resetpolicy: ${errorText(err)}`, "error");
					}
					break;
				}
				default:
					this.say(`resetpolicy: the effect ${ef.effect} has no opencode counterpart; ignored.`, "warning");
			}
		}
	}

	/**
	 * Seed 002's checkpoint as a summary boundary: the whole active window
	 * is summarised (by the session's model, in a child session), and a
	 * boundary holding the summary follows the window's last message, so
	 * the agent resumes from the summary; the raw history stays. The
	 * outcome is reported as summary_done with the effect's attempt.
	 */
	private async checkpoint(s: SessionState, continueRun: boolean, attempt: number, at: Site): Promise<void> {
		let after: string | undefined;
		let window: WithParts[];
		const r = await this.client.session.messages({ path: { id: s.id } });
		const stored = withUnwritten((r.data ?? []) as WithParts[], s.unwritten);
		if (at.site === "turn_end" || at.site === "before_settle") after = at.after;
		else after = stored[stored.length - 1]?.info.id;
		if (after !== undefined) {
			const i = stored.findIndex((m) => m.info.id === after);
			window = activeWindow(i >= 0 ? stored.slice(0, i + 1) : stored).messages;
		} else window = [];
		let ok = false;
		let error = "";
		if (after === undefined || window.length === 0) error = "there is nothing to summarise";
		else {
			try {
				const summary = await this.summarize(s, window);
				const windowId = `w-${Math.random().toString(36).slice(2, 10)}`;
				s.unwritten.push({
					id: `${after}_rp`,
					after,
					texts: [`${SUMMARY_HEAD}\n\n${summary}`],
					meta: { boundary: windowId, after, summary: true },
				});
				s.windowId = windowId;
				s.drafts = [];
				ok = true;
			} catch (err) {
				if (err instanceof EngineDown) throw err;
				error = errorText(err);
			}
		}
		if (ok && !s.busy) await this.flush(s);
		const d = await this.decide(s, "summary_done", { ok, error, attempt, aborted: false });
		await this.apply(s, d.effects, { site: "other" });
		if (!ok || !continueRun) return;
		if (at.site === "command") at.commandText = this.init?.texts.continuation ?? "Continue.";
		else if (!(at.site === "turn_end" && at.loopGoesOn)) s.continueAfterSettle = true;
	}

	/** The summary of a window, written by the session's model in a child session without tools. */
	private async summarize(s: SessionState, window: WithParts[]): Promise<string> {
		const c = await this.client.session.create({ body: { parentID: s.id, title: "resetpolicy checkpoint" } });
		if (c.data === undefined) throw new Error(`the summary session could not be created: ${JSON.stringify(c.error).slice(0, 200)}`);
		this.children.add(c.data.id);
		const r = await this.client.session.prompt({
			path: { id: c.data.id },
			body: {
				...(s.model !== undefined ? { model: s.model } : {}),
				tools: { "*": false },
				parts: [{ type: "text", text: `${SUMMARY_PROMPT}\n\n${transcript(window)}` }],
			},
		});
		const info = r.data?.info;
		if (r.data === undefined || info === undefined) throw new Error(`the summary request failed: ${JSON.stringify(r.error).slice(0, 300)}`);
		if (info.role === "assistant" && info.error !== undefined) {
			const e = info.error as { name: string; data?: { message?: string } };
			throw new Error(`the summary failed: ${e.data?.message ?? e.name}`);
		}
		const text = r.data.parts
			.filter((p) => p.type === "text")
			.map((p) => (p as { text: string }).text)
			.join("\n")
			.trim();
		if (text === "") throw new Error("the summary came back empty");
		return text;
	}

	/**
	 * The retain-none reset: a boundary message placed right after the
	 * message that ended the window, holding the boot text (and the
	 * continuation when opencode's loop goes on by itself); in force for
	 * the next request at once, durable in the session.
	 */
	private async commitReset(s: SessionState, continueRun: boolean, stop: boolean, at: Site): Promise<void> {
		if ((at.site !== "turn_end" && at.site !== "before_settle") || at.after === undefined) {
			this.say("resetpolicy: a reset can only be committed at the end of a turn or when the run settles; nothing was reset.", "warning");
			return;
		}
		const windowId = `w-${Math.random().toString(36).slice(2, 10)}`;
		const boot = this.init?.texts.boot ?? "This is a fresh context window.";
		const cont = this.init?.texts.continuation ?? "Continue.";
		// opencode's loop goes on by itself after a step that called tools:
		// the continuation rides in the boundary. Otherwise the run ends
		// and a continuation starts the next one once the boundary is written.
		const inline = continueRun && at.loopGoesOn && !stop;
		s.unwritten.push({ id: `${at.after}_rp`, after: at.after, texts: inline ? [boot, cont] : [boot], meta: { boundary: windowId, after: at.after } });
		s.windowId = windowId;
		s.drafts = [];
		if (at.site === "turn_end" && (stop || (!continueRun && at.loopGoesOn))) {
			await this.client.session.abort({ path: { id: s.id } });
			return;
		}
		if (continueRun && !inline) {
			if (at.site === "before_settle") await this.flush(s);
			s.continueAfterSettle = true;
		}
	}
}

const SUMMARY_HEAD = "Checkpoint summary: the conversation before this point left the context window; this summary of it is what you carry on from.";

const SUMMARY_PROMPT =
	"Summarise the conversation below so that an agent that sees only your summary can carry on the work: the task and its goal, decisions made, files touched, what is done, open questions and the exact next step. Answer with the summary only.";

/** Characters of one part, and of the whole transcript, a summary request carries. */
const PART_CHARS = 20000;
const TRANSCRIPT_CHARS = 400000;

/** The window as text for the summary request, each part and the whole bounded (the newest text is kept). */
export function transcript(window: WithParts[]): string {
	const lines: string[] = [];
	for (const m of window) {
		for (const p of m.parts) {
			let t = "";
			if (p.type === "text") t = p.text;
			else if (p.type === "tool") t = `[tool ${p.tool}] ${JSON.stringify(p.state.input ?? {})}${p.state.status === "completed" ? `\n${p.state.output}` : ""}`;
			else continue;
			if (t.length > PART_CHARS) t = `${t.slice(0, PART_CHARS)}…`;
			lines.push(`${m.info.role}: ${t}`);
		}
	}
	let out = lines.join("\n\n");
	if (out.length > TRANSCRIPT_CHARS) out = `…${out.slice(out.length - TRANSCRIPT_CHARS)}`;
	return out;
}

export type Site =
	| { site: "request"; requestMessages: WithParts[]; window: WithParts[]; reply?: string; commandText?: string }
	| { site: "turn_end" | "before_settle"; after: string | undefined; loopGoesOn: boolean; reply?: string; commandText?: string }
	| { site: "tool" | "command" | "other"; reply?: string; commandText?: string };

function modelKey(m: { providerID: string; modelID: string } | undefined): string {
	return m === undefined ? "" : `${m.providerID}/${m.modelID}`;
}

export { boundaryOf };
export type { Part };
