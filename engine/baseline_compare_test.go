package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
)

func factsOf(ev engine.Event) facts {
	str := func(n string) string { v, _ := ev.Fact(n); s, _ := v.(string); return s }
	boolean := func(n string) bool { v, _ := ev.Fact(n); b, _ := v.(bool); return b }
	num := func(n string) float64 { v, _ := ev.Fact(n); f, _ := v.(float64); return f }
	return facts{
		event: ev.Name(), windowID: str("window_id"), name: str("name"), outcome: str("outcome"),
		errKind: str("error"), reason: str("reason"),
		enabled: boolean("enabled"), autoReset: boolean("auto_reset"), autoCompaction: boolean("auto_compaction"),
		idle: boolean("idle"), queued: boolean("queued"), syntheticAbort: boolean("synthetic_abort"), on: boolean("on"),
		crossesReset: boolean("crosses_reset"), userInput: boolean("user_input"),
		signalAborted: boolean("signal_aborted"), afterReset: boolean("after_reset"),
		tokens: num("tokens"), contextWindow: num("context_window"), reserve: num("reserve"),
	}
}

// randomStream draws events whose facts sit around every threshold and
// every branch of the rules.
func randomStream(r *rand.Rand, n int) []string {
	pick := func(xs ...any) any { return xs[r.Intn(len(xs))] }
	var out []string
	for i := 0; i < n; i++ {
		m := map[string]any{
			"window_id":       pick("w1", "w1", "w2", "w3"),
			"enabled":         r.Intn(10) > 0,
			"auto_reset":      r.Intn(6) > 0,
			"auto_compaction": r.Intn(6) > 0,
			"idle":            r.Intn(2) == 0,
			"queued":          r.Intn(4) == 0,
			"tokens":          pick(1000, 150000, 160000, 170000, 175000, 183616, 184000, 190000, 199000),
		}
		switch ev := pick("request", "request", "turn_end", "turn_end", "tool", "command", "before_settle", "settled",
			"session_start", "session_tree", "session_shutdown", "toggle", "before_compact", "agent_end", "before_tree").(string); ev {
		case "request":
			m["user_input"] = r.Intn(5) == 0
			m["event"] = ev
		case "before_tree":
			m["crosses_reset"] = r.Intn(2) == 0
			m["event"] = ev
		case "turn_end":
			m["outcome"] = pick("completed", "completed", "completed", "error", "aborted")
			if m["outcome"] == "error" {
				m["error"] = pick("overflow", "other")
			}
			m["synthetic_abort"] = r.Intn(8) == 0
			m["event"] = ev
		case "before_settle":
			m["outcome"] = pick("completed", "completed", "error", "aborted")
			m["event"] = ev
		case "tool":
			m["name"] = pick("wipe_memory", "wipe_memory", "other_tool")
			m["event"] = ev
		case "command":
			m["name"] = pick("wipe-memory", "wipe-memory", "other")
			m["event"] = ev
		case "session_start":
			m["reason"] = pick("startup", "new", "resume", "reload", "fork")
			m["event"] = ev
		case "toggle":
			m["on"] = r.Intn(2) == 0
			m["event"] = ev
		case "before_compact":
			m["reason"] = pick("manual", "threshold", "overflow")
			m["signal_aborted"] = r.Intn(8) == 0
			m["after_reset"] = r.Intn(2) == 0
			m["event"] = ev
		default:
			m["event"] = ev
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return out
}

func baselineStateMap(s baselineState) map[string]any {
	return map[string]any{
		"request":         []string{"none", "close-out", "stop-pending", "tool-requested"}[s.request],
		"request_window":  s.requestWindow,
		"request_source":  []string{"none", "manual", "automatic", "tool"}[s.source],
		"overflow":        []string{"idle", "pending", "pending-spent", "spent"}[s.overflow],
		"draft":           []string{"none", "reminder", "warning"}[s.draft],
		"draft_window":    s.draftWindow,
		"reminder_window": s.reminderWindow,
		"warning_window":  s.warningWindow,
	}
}

// resolveTexts maps the baseline's message names to the policy's texts.
func resolveTexts(p *rules.Policy, effs []engine.Effect) []engine.Effect {
	out := make([]engine.Effect, len(effs))
	for i, e := range effs {
		out[i] = engine.Effect{Name: e.Name}
		for _, a := range e.Args {
			if a.Name == "text" {
				m, _ := p.Message(a.Value.(string))
				a.Value = m.Text
			}
			out[i].Args = append(out[i].Args, a)
		}
	}
	return out
}

// TestBaselineAgreesWithPolicy keeps the benchmark honest: the hand-written
// reducer and the compiled wipe_memory policy decide the same rules,
// effects and states on the benchmark stream and on a long generated one.
func TestBaselineAgreesWithPolicy(t *testing.T) {
	e := wipeMemory(t)
	// The spent overflow chain under a manual close-out is rare at random.
	spentChain := []string{
		`{"event":"turn_end","outcome":"error","error":"overflow"}`,
		`{"event":"before_settle","outcome":"error"}`,
		`{"event":"command","name":"wipe-memory"}`,
		`{"event":"turn_end","outcome":"error","error":"overflow"}`,
		`{"event":"settled"}`,
		`{"event":"turn_end","outcome":"error","error":"overflow"}`,
		`{"event":"before_settle","outcome":"error"}`,
		`{"event":"turn_end","outcome":"error","error":"overflow"}`,
	}
	// So is a stopped run that fails or settles after a manual hard reserve.
	stopPending := []string{
		`{"event":"command","name":"wipe-memory"}`,
		`{"event":"turn_end","tokens":190000}`,
		`{"event":"turn_end","window_id":"w2","outcome":"error","error":"overflow"}`,
		`{"event":"before_settle","window_id":"w2","outcome":"error"}`,
		`{"event":"command","name":"wipe-memory"}`,
		`{"event":"turn_end","tokens":190000}`,
		`{"event":"before_settle"}`,
		`{"event":"turn_end","outcome":"error","error":"overflow"}`,
		`{"event":"before_settle","outcome":"error"}`,
		`{"event":"turn_end","window_id":"w2","outcome":"error","error":"overflow"}`,
		`{"event":"before_settle","window_id":"w2","outcome":"error"}`,
	}
	streams := map[string][]string{"bench": benchStream, "spent chain": spentChain, "stop pending": stopPending, "random": randomStream(rand.New(rand.NewSource(1)), 20000)}
	fired := map[string]bool{}
	for name, stream := range streams {
		s := e.NewSession()
		var b baseline
		for i, line := range stream {
			ev := event(t, line)
			d, err := s.Decide(ev)
			if err != nil {
				t.Fatal(err)
			}
			f := factsOf(ev)
			b.decide(&f)
			for _, r := range d.Rules {
				fired[r] = true
			}
			wantRules := append([]string{}, b.rules...)
			if len(wantRules) == 0 {
				wantRules = []string{}
			}
			gotRules := append([]string{}, d.Rules...)
			if !reflect.DeepEqual(gotRules, wantRules) ||
				fmt.Sprint(d.Effects) != fmt.Sprint(resolveTexts(e.Policy(), b.effects)) ||
				!reflect.DeepEqual(s.State(), baselineStateMap(b.s)) {
				t.Fatalf("%s stream, event %d %s:\npolicy   %v %v %v\nbaseline %v %v %v", name, i, line,
					d.Rules, d.Effects, s.State(), b.rules, b.effects, baselineStateMap(b.s))
			}
		}
	}
	for _, r := range e.Policy().Rules {
		if !fired[r.Name] {
			t.Errorf("no stream fires %s: the comparison does not cover it", r.Name)
		}
	}
}

// BenchmarkBaseline is the hand-written reducer on the same stream as
// BenchmarkDecide, one event per op.
func BenchmarkBaseline(b *testing.B) {
	events := parseStream(b)
	fs := make([]facts, len(events))
	for i, ev := range events {
		fs[i] = factsOf(ev)
	}
	var r baseline
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.decide(&fs[i%len(fs)])
	}
}
