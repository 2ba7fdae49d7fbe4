package verify_test

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

// knownFailures lists findings the built-ins are known to fail today, by
// policy and finding name, each with the reason. The test requires exactly
// these to fail: when a fix lands, its entry must go, so the list only
// ever shrinks. It is empty: every built-in proves its seed's sentences.
var knownFailures = map[string]map[string]string{}

func load(t testing.TB, name string) *rules.Policy {
	t.Helper()
	p, diags := policies.Load(name, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// builtinResults holds verify's result for each built-in at its defaults,
// made once for the tests that read it (a whole exploration of
// autocompacter is seconds of CPU).
var builtinResults sync.Map

// builtinResult is verify's result for the built-in name at its defaults.
func builtinResult(t testing.TB, name string) *verify.Result {
	t.Helper()
	if r, ok := builtinResults.Load(name); ok {
		return r.(*verify.Result)
	}
	r := verify.Check(load(t, name), verify.Options{})
	builtinResults.Store(name, r)
	return r
}

// TestBuiltinsVerify runs verify on every built-in and on the project
// fixture: every property holds, every rule fires, every enum value is
// reached, no reachable decision fails.
func TestBuiltinsVerify(t *testing.T) {
	ps := map[string]*rules.Policy{}
	for _, name := range policies.Names() {
		ps[name] = load(t, name)
	}
	p, diags := rules.LoadFile("../../testdata/project/resetpolicy.hcl", rules.WithBuiltins(policies.Source))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	ps["testdata/project"] = p
	for name, p := range ps {
		t.Run(name, func(t *testing.T) {
			var r *verify.Result
			if p.Name == name {
				r = builtinResult(t, name)
			} else {
				r = verify.Check(p, verify.Options{})
			}
			if r.Bounded {
				t.Errorf("the exploration was cut at %d states: it must reach every state", r.States)
			}
			if len(r.Holds) != len(p.Properties) && len(p.Properties) > 0 && len(r.Findings) == 0 {
				t.Errorf("%d properties, %d hold", len(p.Properties), len(r.Holds))
			}
			known := knownFailures[p.Name]
			for _, f := range r.Findings {
				if _, ok := known[f.Name]; ok {
					continue
				}
				t.Errorf("%s: %s\n%s", f.Name, f.Message, f.EvalLines())
			}
			for name := range known {
				if !failed(r, name) {
					t.Errorf("known failure %q now holds: remove it from knownFailures", name)
				}
			}
			if name == "wipe_memory" {
				// The warning outranks the reminder only by file order: a
				// warning, not a failure.
				found := false
				for _, w := range r.Warnings {
					found = found || w.Name == "order budget_warning_staged_once_per_window before budget_reminder_staged_once_per_window"
				}
				if !found {
					t.Errorf("no file-order warning for the budget staging rules: %+v", r.Warnings)
				}
			}
			if len(p.Properties) == 0 && name != "testdata/project" {
				t.Errorf("built-in %s declares no property", name)
			}
		})
	}
}

func failed(r *verify.Result, name string) bool {
	for _, f := range r.Findings {
		if f.Name == name {
			return true
		}
	}
	return false
}

// TestWeakenedGuardFails breaks one guard in a copy of wipe_memory — the
// user abort no longer clears a pending overflow recovery — and requires
// verify to find the aborted run that commits, with a counterexample whose
// eval stream, replayed through the engine, shows the commit.
func TestWeakenedGuardFails(t *testing.T) {
	src, _ := policies.Source("wipe_memory")
	text := string(src.Bytes)
	const guard = `rule "settle_abort_clears_everything" {
    on   = "before_settle"
    when = "event.outcome == 'aborted'"`
	if !strings.Contains(text, guard) {
		t.Fatal("the guard to weaken is not in wipe_memory.hcl any more; update this test")
	}
	text = strings.Replace(text, guard, strings.Replace(guard, `'aborted'"`, `'aborted' && state.overflow == 'idle'"`, 1), 1)
	p, diags := rules.Load(rules.Source{Name: "weakened.hcl", Bytes: []byte(text)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	var f *verify.Finding
	for i := range r.Findings {
		if r.Findings[i].Name == "an aborted run never commits a reset when it settles" {
			f = &r.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("verify did not find the aborted commit; findings: %+v", r.Findings)
	}
	// Replay the eval stream as `resetpolicy eval` would.
	s := engine.New(p).NewSession()
	var last *engine.Decision
	var lastEvent engine.Event
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(f.EvalLines()))
	for sc.Scan() {
		ev, err := engine.ParseEvent(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		d, err := s.Decide(ev)
		if err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		last, lastEvent = d.Clone(), ev
		lines++
	}
	if lines == 0 || lines > 4 {
		t.Errorf("counterexample has %d events; the shortest has 3 (overflow, recovery armed, aborted settle)", lines)
	}
	outcome, _ := lastEvent.Fact("outcome")
	commits := false
	for _, e := range last.Effects {
		commits = commits || e.Name == "commit_reset"
	}
	if lastEvent.Name() != "before_settle" || outcome != "aborted" || !commits {
		t.Errorf("replayed, the last event is %s (outcome %v) with effects %+v; want an aborted before_settle that commits", lastEvent.Name(), outcome, last.Effects)
	}
	if !strings.Contains(f.RunBlock(p.Name), `event "before_settle" {`) {
		t.Errorf("the run block does not replay the events:\n%s", f.RunBlock(p.Name))
	}
}

// TestLanguageReferenceExampleVerifies keeps the property example of
// rules/README.md true: it loads and verifies.
func TestLanguageReferenceExampleVerifies(t *testing.T) {
	b, err := os.ReadFile("../../rules/README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	var src string
	for _, m := range blocks {
		if strings.Contains(m[1], "property \"") {
			src = m[1]
		}
	}
	if src == "" {
		t.Fatal("rules/README.md has no property example")
	}
	p, diags := rules.Load(rules.Source{Name: "rules/README.md", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	if !r.OK() || len(r.Holds) != len(p.Properties) {
		var buf strings.Builder
		r.WriteText(&buf)
		t.Errorf("the example does not verify:\n%s", buf.String())
	}
}

// TestBuiltinChecks: a shadowed rule is named with the rule that wins, an
// unreachable value is found, and the verify block can expect both.
func TestBuiltinChecks(t *testing.T) {
	const base = `policy "p" {}
slot "phase" {
  values = ["idle", "busy", "never"]
}
group "g" {
  rule "start" {
    on   = "tool"
    to   = { phase = "busy" }
  }
  rule "start_named" {
    on   = "tool"
    when = "event.name == 'x'"
    to   = { phase = "idle" }
  }
  rule "divide" {
    on   = "turn_end"
    from = { phase = "busy" }
    when = "10 % event.tool_results == 0"
    to   = { phase = "idle" }
  }
}
`
	load := func(src string) *verify.Result {
		p, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte(src)})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return verify.Check(p, verify.Options{})
	}
	r := load(base)
	want := map[string]string{
		"dead rule start_named": "an earlier rule of group g fires first (start)",
		"unreached phase.never": `phase = "never"`,
		"runtime error":         "fails at run time",
	}
	for _, f := range r.Findings {
		if w, ok := want[f.Name]; ok && strings.Contains(f.Message, w) {
			delete(want, f.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing findings %v in %+v", want, r.Findings)
	}
	// The run block of a decision that fails at run time fails in test:
	// the event errors.
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Kind == verify.KindRuntime {
			p, _ := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte(base)})
			runFails(t, p, f)
		}
	}
	r = load(base + `verify {
  unfired   = ["start_named", "divide"]
  unreached = ["phase.never"]
}`)
	for _, f := range r.Findings {
		if f.Kind != verify.KindRuntime {
			t.Errorf("expected finding still fails: %+v", f)
		}
	}
	if len(r.Expected) != 3 {
		t.Errorf("expected: %v", r.Expected)
	}
}

// TestLoopFound: a failed summary that continues the run, whose next turn
// starts another summary, loops without new input; the lasso replays as
// one consistent session that comes back to where its cycle started.
func TestLoopFound(t *testing.T) {
	const src = `policy "loop" {}
slot "phase" {
  values = ["idle", "summarizing"]
}
group "g" {
  rule "turn_starts_summary" {
    on   = "turn_end"
    from = { phase = "idle" }
    to   = { phase = "summarizing" }
    effect "checkpoint" {
      continue = true
    }
  }
  rule "failed_summary_continues" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "!event.ok"
    to   = { phase = "idle" }
    effect "continue" {}
  }
  rule "saved_summary_rests" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "event.ok"
    to   = { phase = "idle" }
  }
}
property "no continuation loop without a new request" {
  no_loop_of   = "continue"
  new_input_on = ["tool"]
}
`
	p, diags := rules.Load(rules.Source{Name: "loop.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	if len(r.Findings) != 1 {
		t.Fatalf("findings: %+v", r.Findings)
	}
	f := r.Findings[0]
	var names []string
	for _, s := range f.Trace {
		names = append(names, s.Event["event"].(string))
	}
	// Round the cycle once, then its first step again, which the run
	// block's assert is about.
	if got := strings.Join(names, " "); got != "turn_end summary_done turn_end" && got != "turn_end summary_done turn_end summary_done" {
		t.Errorf("lasso: %s (loop starts at %d)", got, f.LoopStart)
	}
	if !strings.Contains(f.RunBlock(p.Name), "the cycle starts here") {
		t.Errorf("run block does not mark the cycle:\n%s", f.RunBlock(p.Name))
	}
	replays(t, p, &f)
	runFails(t, p, &f)
}

// An exploration cut by the state bound proves nothing about the states it
// did not reach: it fails and says so, where one cut by --depth is the
// author's choice.
func TestStateLimitIsIncomplete(t *testing.T) {
	p, diags := policies.Load("wipe_memory", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{MaxStates: 20})
	if !r.Incomplete || r.OK() {
		t.Fatalf("cut at %d states: incomplete %v, ok %v; want incomplete and not ok", r.States, r.Incomplete, r.OK())
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "incomplete: the exploration stopped at the state limit") {
		t.Errorf("the report does not say it is incomplete:\n%s", b.String())
	}
	if (&verify.Result{Incomplete: true}).OK() {
		t.Error("an incomplete exploration with no finding counts as verified")
	}
	if d := verify.Check(p, verify.Options{Depth: 2}); d.Incomplete || !d.Bounded {
		t.Errorf("--depth 2: bounded %v, incomplete %v; want bounded by depth, not incomplete", d.Bounded, d.Incomplete)
	}
}

// A policy that uses a built-in: the built-in's own file-order warnings are
// counted, not listed (AllWarnings lists them), the author's are listed,
// and a dead rule of the author's names the earlier rule that shadows it.
func TestComposedFindingsAreTheAuthors(t *testing.T) {
	src := `use "wipe_memory" {}
slot "mode" {
  values = ["plain", "named"]
}
group "team" {
  rule "any_tool_is_plain" {
    on = "tool"
    to = { mode = "plain" }
  }
  rule "named_tool" {
    on   = "tool"
    when = "event.name == 'notes'"
    to   = { mode = "named" }
  }
}
`
	p, diags := rules.Load(rules.Source{Name: "team.hcl", Bytes: []byte(src)}, rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Name, "any_tool_is_plain before named_tool") {
		t.Errorf("warnings: want the author's one only, got %+v", r.Warnings)
	}
	if r.HiddenWarnings < 10 {
		t.Errorf("hidden built-in warnings: %d", r.HiddenWarnings)
	}
	all := verify.Check(p, verify.Options{AllWarnings: true})
	if len(all.Warnings) != 1+r.HiddenWarnings {
		t.Errorf("AllWarnings: %d warnings, want 1 + %d", len(all.Warnings), r.HiddenWarnings)
	}
	dead := false
	for _, f := range r.Findings {
		if f.Name == "dead rule named_tool" {
			dead = strings.Contains(f.Message, "an earlier rule of group team fires first (any_tool_is_plain)")
		}
	}
	if !dead {
		t.Errorf("the dead rule is not named with its shadow: %+v", r.Findings)
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "file-order warnings between the built-in's own rules not shown (--all-warnings shows them)") {
		t.Errorf("the report does not say warnings were left out:\n%s", b.String())
	}
}

// A policy whose plans are compiled on use is explored as one compiled
// whole (Check compiles what is left first), and a plan that fails to
// compile then makes the result incomplete, naming the mistake.
func TestCheckOfAPolicyCompiledOnUse(t *testing.T) {
	decide := []rules.Option{rules.WithoutProperties(), rules.CompileOnUse()}
	later, diags := policies.Load("wipe_memory", nil, decide...)
	if diags.HasErrors() || !later.CompilesOnUse() {
		t.Fatalf("load: %s", diags.Error())
	}
	full, diags := policies.Load("wipe_memory", nil, rules.WithoutProperties())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got, want := verify.Check(later, verify.Options{}), verify.Check(full, verify.Options{})
	if got.States != want.States || got.Transitions != want.Transitions || len(got.Findings) != len(want.Findings) || got.Incomplete || got.States < 2 {
		t.Fatalf("on use: %d states, %d transitions, %d findings, incomplete %v; want %d, %d, %d",
			got.States, got.Transitions, len(got.Findings), got.Incomplete, want.States, want.Transitions, len(want.Findings))
	}

	broken, err := os.ReadFile("../../testdata/compile_on_use/broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := hcltree.EncodeSource(broken, "broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	p, diags := rules.Load(rules.Source{Name: "broken.hcl", Bytes: broken, Tree: tree}, decide...)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	if !r.Incomplete || len(r.Findings) != 1 || r.Findings[0].Kind != verify.KindRuntime || !strings.Contains(r.Findings[0].Message, "broken.hcl:18") {
		t.Fatalf("a plan that fails on use: %+v", r)
	}
}

// Seed 002 line 26 "Retry delays are 5, 10, and 20 seconds ... Three
// failures pause automatic attempts": the n-th failure in a row waits
// retry_delays_ms[n-1] whatever the failure limit. With a limit of 1 the
// built-in once stopped counting at 1, so every later failure waited the
// first delay; the retry-delay property, stated over the summaries, fails
// that and proves the built-in.
func TestAutocompacterRetryDelaysAtFailureLimitOne(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole exploration of autocompacter: skipped with -short")
	}
	p, diags := policies.Load("autocompacter", map[string]string{"failure_limit": "1"})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	for _, f := range r.Findings {
		if f.Kind == verify.KindProperty {
			t.Errorf("at failure_limit = 1: %s: %s", f.Name, f.Message)
		}
	}
	if !slices.Contains(r.Holds, "no checkpoint at a turn boundary before the retry delay") {
		t.Errorf("the retry-delay property is not proved at failure_limit = 1: holds %v", r.Holds)
	}
}
