package verify_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// A probe is a property no policy here meets — an `ask` at a turn_end —
// over the turn_ends its condition picks: it fails at the first such turn
// the exploration tries, so its counterexample shows the turn was tried,
// and with which facts. Its condition reads only the facts named, so it
// does not itself make verify vary the others.
const probe = `
property "probe" {
  always_emits = "ask"
  on           = "turn_end"
  when         = "%s"
}
`

// turnEndSmall reads one fact of a turn_end only: the other facts a host
// sends with it are read by nothing.
const turnEndSmall = `
policy "small" {}
slot "seen" {
  type = bool
}
group "g" {
  rule "r" {
    on   = "turn_end"
    when = "%s"
    set  = { seen = "true" }
  }
}
`

// TestTurnsOfEveryOutcomeExplored: a turn that ended in an error, an
// aborted one and a synthetic abort are explored wherever a guard reads
// one of the facts a host sends together (consistent) — though the
// policy reads no other: autocompacter reads a turn's outcome but never
// its error kind, and has rules for failed turns (seed 002 line 12 "An
// aborted or failed turn cancels a queued tool request"). The tied fact
// takes a value the contract lets a host send with it.
func TestTurnsOfEveryOutcomeExplored(t *testing.T) {
	builtin := func(name string) string {
		src, ok := policies.Source(name)
		if !ok {
			t.Fatalf("no built-in %q", name)
		}
		return string(src.Bytes)
	}
	small := func(when string) string { return fmt.Sprintf(turnEndSmall, when) }
	turnEnd, _ := contract.LookupEvent("turn_end")
	errKinds := turnEnd.Facts[slices.IndexFunc(turnEnd.Facts, func(f contract.Fact) bool { return f.Name == "error" })].Enum
	cases := []struct {
		name, src, when string
		// want: the facts the probe's turn_end carries
		want map[string][]any
	}{
		{"autocompacter: a failed turn with a stored request", builtin("autocompacter"), "event.outcome == 'error' && state.request != 'none'",
			map[string][]any{"outcome": {"error"}, "error": toAnys(errKinds[1:])}},
		{"autocompacter: an aborted turn", builtin("autocompacter"), "event.outcome == 'aborted'",
			map[string][]any{"outcome": {"aborted"}, "error": {nil}}},
		{"wipe_memory: a failed turn", builtin("wipe_memory"), "event.outcome == 'error'",
			map[string][]any{"outcome": {"error"}, "error": toAnys(errKinds[1:])}},
		{"new_context: a failed turn", builtin("new_context"), "event.outcome == 'error'",
			map[string][]any{"outcome": {"error"}, "error": toAnys(errKinds[1:])}},
		{"a guard reading only the error kind", small("event.error == 'overflow'"), "event.error == 'overflow'",
			map[string][]any{"outcome": {"error"}, "error": {"overflow"}}},
		{"a guard reading only the synthetic abort", small("event.synthetic_abort"), "event.synthetic_abort",
			map[string][]any{"outcome": {"aborted"}, "synthetic_abort": {true}}},
		{"a guard reading only the outcome", small("event.outcome == 'error'"), "event.outcome == 'error'",
			map[string][]any{"outcome": {"error"}, "error": toAnys(errKinds[1:])}},
		{"an error kind declared as none", small("event.outcome == 'error'") + declare("turn_end.error", `[""]`), "event.outcome == 'error'",
			map[string][]any{"outcome": {"error"}, "error": {errKinds[1]}}},
		{"an outcome declared as completed only", small("event.synthetic_abort") + declare("turn_end.outcome", `["completed"]`), "event.synthetic_abort",
			map[string][]any{"outcome": {"aborted"}, "synthetic_abort": {true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src + fmt.Sprintf(probe, c.when)
			p, diags := rules.Load(rules.Source{Name: "probe.hcl", Bytes: []byte(src)})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			r := verify.Check(p, verify.Options{FailFast: true})
			f := findingOf(r, "probe")
			if f == nil {
				t.Fatalf("no turn_end where %s is explored", c.when)
			}
			if strings.Contains(c.name, "declared") && !slices.ContainsFunc(r.Sampling, func(s verify.Sampling) bool { return strings.Contains(s.How, "which a host sends with") }) {
				t.Errorf("the sampling does not say which values were added to a declared domain: %+v", r.Sampling)
			}
			last := f.Trace[len(f.Trace)-1].Event
			for fact, vals := range c.want {
				if !slices.Contains(vals, last[fact]) {
					t.Errorf("the turn_end explored has %s = %v, want one of %v: %v", fact, last[fact], vals, last)
				}
			}
			replays(t, p, f)
		})
	}
}

// declare is a verify block declaring the domain of fact.
func declare(fact, vals string) string {
	return fmt.Sprintf("verify {\n  domain = { %q = %s }\n}\n", fact, vals)
}

func toAnys(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// TestSummariesAHostSends: a summary_done is aborted or already compact
// only when it is not ok, and never both (the contract; host/pi's
// effects.ts), so no counterexample is a summary no host sends; and each
// kind of failed summary is still explored, where a guard reads only ok
// and where one reads only aborted or already_compact.
func TestSummariesAHostSends(t *testing.T) {
	const small = `
policy "small" {}
slot "failed" {
  type = bool
}
group "g" {
  rule "r" {
    on   = "summary_done"
    when = "%s"
    set  = { failed = "true" }
  }
}
property "probe" {
  always_emits = "ask"
  on           = "summary_done"
  when         = "%s"
}
`
	probeOn := func(when string) *verify.Finding {
		t.Helper()
		guard := "!event.ok"
		if !strings.Contains(when, "event.ok") {
			guard = when
		}
		p, diags := rules.Load(rules.Source{Name: "probe.hcl", Bytes: []byte(fmt.Sprintf(small, guard, when))})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return findingOf(verify.Check(p, verify.Options{FailFast: true}), "probe")
	}
	for _, never := range []string{"event.ok && event.aborted", "event.ok && event.already_compact", "event.aborted && event.already_compact"} {
		if f := probeOn(never); f != nil {
			t.Errorf("a summary_done where %s was explored: %v", never, f.Trace[len(f.Trace)-1].Event)
		}
	}
	for _, tried := range []string{"!event.ok && event.aborted", "!event.ok && event.already_compact", "!event.ok && !event.aborted && !event.already_compact"} {
		if probeOn(tried) == nil {
			t.Errorf("no summary_done where %s is explored", tried)
		}
	}
	// Read alone, aborted is tried with the ok a host sends with it: with
	// ok at its default true every aborted summary would be dropped.
	for _, alone := range []string{"event.aborted", "event.already_compact"} {
		f := probeOn(alone)
		if f == nil {
			t.Errorf("no summary_done where %s is explored when only it is read", alone)
			continue
		}
		if last := f.Trace[len(f.Trace)-1].Event; last["ok"] != false {
			t.Errorf("the summary_done explored for %s has ok = %v: %v", alone, last["ok"], last)
		}
	}
}
