package verify_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

type observed struct {
	from, to []lang.Value
	event    string
	rules    []string
}

// explored is what an exploration says and every transition it saw, in
// order; only the count of decisions may differ between two that explore
// the same ground.
func explored(p *rules.Policy, opts verify.Options, check func(*rules.Policy, verify.Options) *verify.Result) (*verify.Result, []observed) {
	var seen []observed
	opts.Observe = func(from, to []lang.Value, event string, rules []string) {
		seen = append(seen, observed{slices.Clone(from), slices.Clone(to), event, slices.Clone(rules)})
	}
	r := check(p, opts)
	r.Transitions = 0
	return r, seen
}

// TestClassesChangeNothing: deciding one instance per class of instances
// that read alike finds what deciding every instance finds — the same
// states, transitions in the same order, findings with the same
// counterexamples, warnings and unfired rules — on the built-ins and on
// every mutant, which make properties fail.
func TestClassesChangeNothing(t *testing.T) {
	t.Parallel() // seconds of CPU: beside the package's other long tests
	type run struct {
		name string
		p    *rules.Policy
		opts verify.Options
		want string // a finding the run must have, if any
	}
	// Deciding every instance is slow: the larger explorations stop at a
	// bound, where both ways stop alike.
	const states = 600
	runs := []run{{"wipe_memory", load(t, "wipe_memory"), verify.Options{MaxStates: states}, ""}, {"new_context", load(t, "new_context"), verify.Options{}, ""}}
	// A request's user_input ends every no_loop cycle and a new session
	// opens a new window, though here no guard reads either fact unless
	// steering is queued.
	p, diags := rules.Load(rules.Source{Name: "input.hcl", Bytes: []byte(`policy "input" {}
slot "phase" {
  values = ["idle", "busy"]
}
group "g" {
  rule "queued_input_starts" {
    on   = "request"
    when = "event.queued && event.user_input"
    to   = { phase = "busy" }
  }
  rule "queued_new_session_starts" {
    on   = "session_start"
    when = "event.queued && event.reason == 'new'"
    to   = { phase = "busy" }
  }
  rule "turn_continues" {
    on   = "turn_end"
    from = { phase = "busy" }
    to   = { phase = "idle" }
    effect "continue" {}
  }
}
property "no continuation loop without new input" {
  no_loop_of = "continue"
}
`)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runs = append(runs, run{"user input, new session", p, verify.Options{}, "no continuation loop without new input"})
	// A guard that fails at run time once an earlier conjunct holds, and
	// one that fails on its first conjunct, before the literal it
	// compares the command's name with.
	p, diags = rules.Load(rules.Source{Name: "fails.hcl", Bytes: []byte(`policy "fails" {}
slot "phase" {
  values = ["idle", "busy"]
}
group "g" {
  rule "named" {
    on   = "tool"
    when = "event.name == 'x'"
    to   = { phase = "busy" }
  }
  rule "divide" {
    on   = "turn_end"
    from = { phase = "busy" }
    when = "event.queued && 10 % event.tool_results == 0"
    to   = { phase = "idle" }
  }
  rule "rest" {
    on   = "turn_end"
    to   = { phase = "idle" }
  }
  rule "parsed" {
    on   = "command"
    when = "int(event.args) > 0 && event.name == 'x'"
    to   = { phase = "busy" }
  }
}
`)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runs = append(runs, run{"run-time error", p, verify.Options{}, "runtime error"})
	for _, m := range readMutants(t) {
		if m.heavy {
			continue
		}
		b, _ := policies.Source(m.policy)
		src := string(b.Bytes)
		for _, e := range m.edits {
			src = strings.Replace(src, e.old, e.new, 1)
		}
		p, diags := rules.Load(rules.Source{Name: m.policy + "_mutant.hcl", Bytes: []byte(src)})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		runs = append(runs, run{m.name, p, verify.Options{FailFast: true, MaxStates: states}, ""})
	}
	found := 0
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			want, wantSeen := explored(r.p, r.opts, verify.CheckEveryInstance)
			got, gotSeen := explored(r.p, r.opts, verify.Check)
			if len(got.Findings) > 0 {
				found++
			}
			if r.want != "" && !failed(got, r.want) {
				t.Errorf("no finding %q: %+v", r.want, got.Findings)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("classes of instances change the result:\n got %+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(gotSeen, wantSeen) {
				t.Errorf("classes of instances change the transitions seen: %d, want %d", len(gotSeen), len(wantSeen))
			}
		})
	}
	t.Logf("%d of %d runs with findings", found, len(runs))
}
