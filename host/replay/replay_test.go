package replay_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
	"github.com/resetpolicy/resetpolicy/host/sim"
	"github.com/resetpolicy/resetpolicy/policies"
)

var dir = filepath.Join("..", "..", "testdata", "sessions")

func config(t testing.TB, policy string, set map[string]string, window int64) replay.Config {
	t.Helper()
	p, diags := policies.Load(policy, set)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := replay.DefaultSettings()
	s.ContextWindow = window
	return replay.Config{Label: policy, Engine: engine.New(p), Settings: s, Points: true}
}

func replayFile(t testing.TB, cfg replay.Config, name, leaf string) *replay.Report {
	t.Helper()
	path := name
	if !filepath.IsAbs(name) {
		path = filepath.Join(dir, name)
	}
	f, err := sessionfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.New(cfg).Replay(f, leaf)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The recorded session has a 64000-token window: with warning_runway
// 20000 the close-out warning comes at an earlier turn, with more runway
// left, than with 8192.
func TestWarningRunwayMovesTheWarning(t *testing.T) {
	late := replayFile(t, config(t, "wipe_memory", map[string]string{"warning_runway": "8192"}, 64000), "pi-faux-read.jsonl", "")
	early := replayFile(t, config(t, "wipe_memory", map[string]string{"warning_runway": "20000"}, 64000), "pi-faux-read.jsonl", "")
	if late.FirstWarning == nil || early.FirstWarning == nil {
		t.Fatalf("no warning: %+v %+v", late.FirstWarning, early.FirstWarning)
	}
	if early.FirstWarning.Turn >= late.FirstWarning.Turn {
		t.Fatalf("warning at turn %d with 20000, %d with 8192: not earlier", early.FirstWarning.Turn, late.FirstWarning.Turn)
	}
	for _, r := range []*replay.Report{late, early} {
		w := r.FirstWarning
		// The warning goes out at the first request whose remaining
		// tokens reach reserve + runway, measured.
		if w.Projected || w.Runway != 64000-w.Tokens-16384 {
			t.Errorf("warning %+v: projected or wrong runway", w)
		}
	}
	if early.FirstWarning.Runway > 20000 || early.FirstWarning.Runway < 20000-2000 || late.FirstWarning.Runway > 8192 {
		t.Errorf("runway at the warning: %d (20000), %d (8192)", early.FirstWarning.Runway, late.FirstWarning.Runway)
	}
}

// Figures are measured until the first decision that changes the window
// and projected from it on; the recorded compaction after that point is
// not replayed, and the projected window starts at the boot's size. (In a
// 60000-token window: Pi's estimate of the record peaks at 46979, short of
// the hard reserve of a 64000-token one.)
func TestMeasuredThenProjected(t *testing.T) {
	rep := replayFile(t, config(t, "wipe_memory", nil, 60000), "pi-faux-read.jsonl", "")
	if rep.DivergedAt == 0 || rep.Resets != 1 || rep.NotReplayed != 1 || rep.RecordedCompactions != 1 {
		t.Fatalf("diverged at %d, resets %d, not replayed %d, recorded compactions %d", rep.DivergedAt, rep.Resets, rep.NotReplayed, rep.RecordedCompactions)
	}
	var reset *replay.Decision
	for i, d := range rep.Decisions {
		if d.Turn < rep.DivergedAt && d.Projected {
			t.Errorf("decision before divergence projected: %+v", d)
		}
		if d.Turn > rep.DivergedAt && !d.Projected {
			t.Errorf("decision after divergence measured: %+v", d)
		}
		if reset == nil && slices.ContainsFunc(d.Effects, func(e map[string]any) bool { return e["effect"] == "commit_reset" }) {
			reset = &rep.Decisions[i]
		}
	}
	if reset == nil || reset.Turn != rep.DivergedAt || reset.Projected {
		t.Fatalf("the reset decision %+v is not the measured divergence at turn %d", reset, rep.DivergedAt)
	}
	if !slices.Contains(reset.Rules, "turn_end_hard_reserve_commits") {
		t.Errorf("reset by %v, want the hard reserve", reset.Rules)
	}
	// After the reset the next request starts near the first request's
	// size (system prompt, tools, first prompt) and grows as recorded.
	var after []replay.Point
	for _, p := range rep.Points {
		if p.Turn > rep.DivergedAt {
			after = append(after, p)
		}
	}
	first := rep.Points[0].Tokens
	if len(after) == 0 || !after[0].Projected() || after[0].Tokens < first || after[0].Tokens > first+5000 {
		t.Fatalf("first projected point %+v, boot %d", after, first)
	}
	for i := 1; i < len(after); i++ {
		if after[i].Tokens < after[i-1].Tokens {
			t.Errorf("projected context fell without a reset: %+v", after)
		}
	}
}

// Versions 1, 2 and 3 of the same session replay to the same decisions
// at the same turns (token estimates of entries without usage depend on
// line lengths, which differ between versions, so only measured figures
// are compared).
func TestVersionsReplayAlike(t *testing.T) {
	cfg := config(t, "wipe_memory", nil, 64000)
	key := func(r *replay.Report) []string {
		var out []string
		for _, d := range r.Decisions {
			if d.Event == "request" || d.Event == "tool" {
				out = append(out, strings.Join(append([]string{d.Event, string(rune('0' + d.Turn%10))}, d.Rules...), ","))
			}
		}
		return out
	}
	v3 := replayFile(t, cfg, "pi-faux-read.jsonl", "")
	for _, name := range []string{"pi-faux-read.v1.jsonl", "pi-faux-read.v2.jsonl"} {
		r := replayFile(t, cfg, name, "")
		if r.Turns != v3.Turns || *r.FirstWarning != *v3.FirstWarning || *r.FirstReminder != *v3.FirstReminder || r.Resets != v3.Resets {
			t.Errorf("%s: turns %d warning %+v reminder %+v resets %d; v3: %d %+v %+v %d", name, r.Turns, r.FirstWarning, r.FirstReminder, r.Resets,
				v3.Turns, v3.FirstWarning, v3.FirstReminder, v3.Resets)
		}
		if !slices.Equal(key(r), key(v3)) {
			t.Errorf("%s decides differently:\n%v\n%v", name, key(r), key(v3))
		}
	}
}

// The active branch of a branched session is replayed (two turns after
// the /tree summary, which is a session_tree event); --branch picks the
// other.
func TestReplayBranch(t *testing.T) {
	cfg := config(t, "wipe_memory", nil, 64000)
	active := replayFile(t, cfg, "branched.jsonl", "")
	if active.Turns != 2 || active.Leaf != "b0000003" {
		t.Fatalf("active branch: %d turns, leaf %s", active.Turns, active.Leaf)
	}
	if !slices.ContainsFunc(active.Decisions, func(d replay.Decision) bool { return d.Event == "session_tree" }) {
		t.Errorf("the branch summary is not a session_tree event: %+v", active.Decisions)
	}
	full := replayFile(t, cfg, "pi-faux-read.jsonl", "")
	f, _ := sessionfile.ReadFile(filepath.Join(dir, "pi-faux-read.jsonl"))
	other := replayFile(t, cfg, "branched.jsonl", f.Leaf())
	if other.Turns != full.Turns || other.Resets != full.Resets {
		t.Errorf("--branch: %d turns %d resets, want %d %d", other.Turns, other.Resets, full.Turns, full.Resets)
	}
}

// A zero-usage error turn whose message is a context overflow is a
// turn_end with outcome error and error overflow: wipe_memory arms its
// overflow recovery and commits it when the run settles.
func TestOverflowErrorTurn(t *testing.T) {
	rep := replayFile(t, config(t, "wipe_memory", nil, 64000), "messy.jsonl.reset.2026-11-30T21-00-00-000Z", "")
	var rules []string
	for _, d := range rep.Decisions {
		rules = append(rules, d.Rules...)
	}
	for _, want := range []string{"turn_end_overflow_arms_recovery", "settle_overflow_recovery_gets_one_attempt"} {
		if !slices.Contains(rules, want) {
			t.Errorf("%s did not fire: %v", want, rules)
		}
	}
	// Line 5 holds two objects, which Pi drops; line 8 is cut.
	if len(rep.Errors) != 2 || !strings.HasPrefix(rep.Errors[0], "line 5: two JSON values") || !strings.HasPrefix(rep.Errors[1], "line 8:") ||
		rep.Skipped["openclaw.checkpoint"] != 1 || rep.Joined != 1 {
		t.Errorf("errors %v skipped %v joined %d", rep.Errors, rep.Skipped, rep.Joined)
	}
}

// The simulator's --out replays under the policy that made it to the
// same reset at the same turn; the replay and the record agree, so the
// figures stay measured.
func TestReplaySimulatorOut(t *testing.T) {
	sc, diags := scenario.Default()
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, pd := sim.LoadPolicy(sim.PolicyName("", sc), sc, nil)
	if pd.HasErrors() {
		t.Fatal(pd.Error())
	}
	res, err := sim.Run(p, sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sim.jsonl")
	if err := res.Session.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	f, err := sessionfile.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.New(replay.Config{Engine: engine.New(p), Settings: replay.DefaultSettings(), Points: true}).Replay(f, "")
	if err != nil {
		t.Fatal(err)
	}
	simResetTurn := 0
	for _, l := range res.Lines {
		for _, e := range l.Effects {
			if e.Name == "commit_reset" && simResetTurn == 0 {
				simResetTurn = l.Turn
			}
		}
	}
	var replayResetTurn int
	for _, d := range rep.Decisions {
		if slices.ContainsFunc(d.Effects, func(e map[string]any) bool { return e["effect"] == "commit_reset" }) && replayResetTurn == 0 {
			replayResetTurn = d.Turn
		}
	}
	if rep.RecordedResets != 1 || rep.Resets != 1 || simResetTurn == 0 || replayResetTurn != simResetTurn || rep.DivergedAt != 0 {
		t.Fatalf("recorded resets %d, replayed %d at turn %d (simulated at %d), diverged at %d", rep.RecordedResets, rep.Resets, replayResetTurn, simResetTurn, rep.DivergedAt)
	}
	// The agent's wipe_memory call is a tool event the policy answers.
	if !slices.ContainsFunc(rep.Decisions, func(d replay.Decision) bool {
		return d.Event == "tool" && slices.Contains(d.Rules, "tool_request_upgrades_budget_close_out")
	}) {
		t.Errorf("no tool event for wipe_memory: %+v", rep.Decisions)
	}
	for _, pt := range rep.Points {
		if pt.Projected() {
			t.Fatalf("projected point %+v although the replay agreed with the record", pt)
		}
	}
}

// Every built-in replays the recorded sessions without a rejected event.
func TestBuiltinsReplayWithoutRejections(t *testing.T) {
	files, err := sessionfile.Walk([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{"wipe_memory", "new_context", "autocompacter"} {
		for _, file := range files {
			rep := replayFile(t, config(t, pol, nil, 64000), filepath.Base(file), "")
			if len(rep.Rejected) > 0 {
				t.Errorf("%s on %s: rejected %+v", pol, file, rep.Rejected)
			}
			if rep.Turns == 0 || rep.Events < 2*rep.Turns+1 {
				t.Errorf("%s on %s: %d events for %d turns", pol, file, rep.Events, rep.Turns)
			}
		}
	}
}

func TestContextWindowTable(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int64
		known bool
	}{
		{"claude-sonnet-4-5", 200000, true},
		{"anthropic/claude-opus-4-5", 200000, true},
		{"claude-opus-4-1", replay.DefaultContextWindow, false}, // retired from pi-ai 1.6's registry
		{"gpt-4o-mini", 128000, true},
		{"gpt-4.1", 1047576, true},
		{"gemini-2.5-pro", 1048576, true},
		{"faux-1", replay.DefaultContextWindow, false},
	} {
		got, known := replay.ContextWindow(tc.model)
		if got != tc.want || known != tc.known {
			t.Errorf("%s: %d %v, want %d %v", tc.model, got, known, tc.want, tc.known)
		}
	}
}

func TestApplyPiSettings(t *testing.T) {
	s, err := replay.ApplyPiSettings(replay.DefaultSettings(), []byte(`{"compaction":{"enabled":false,"reserveTokens":32768},"theme":"dark"}`))
	if err != nil || s.AutoCompaction || s.Reserve != 32768 || s.KeepRecent != 20000 {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = replay.ApplyPiSettings(s, []byte(`{"compaction":{"keepRecentTokens":4000}}`))
	if err != nil || s.AutoCompaction || s.Reserve != 32768 || s.KeepRecent != 4000 {
		t.Fatalf("layered: %+v %v", s, err)
	}
	for _, bad := range []string{`{"compaction":{"reserveTokens":-1}}`, `{"compaction":{"enabled":"yes"}}`, `[`} {
		if got, err := replay.ApplyPiSettings(s, []byte(bad)); err == nil || got != s {
			t.Errorf("%s: accepted or changed: %+v %v", bad, got, err)
		}
	}
}
