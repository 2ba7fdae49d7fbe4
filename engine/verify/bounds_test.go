package verify_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
)

func mustLoad(t *testing.T, src string) *rules.Policy {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

const counterPolicy = `policy "count" {}
slot "c" {
  type = int
}
group "g" {
  rule "tool_counts" {
    on  = "tool"
    set = { c = "state.c + 1" }
  }
}
`

// An int slot a tool event increments has no end of values. Used only in
// comparisons with constants, clamping it is sound and the proof ends; used
// in arithmetic, it stays exact: verify finds the violation, and since the
// exploration never ends, stops at a bound and says so — never "holds".
func TestUnboundedCounter(t *testing.T) {
	p := mustLoad(t, counterPolicy+`property "c stays below 3 sevens" {
  always = "state.c * 7 % 10 != 3"
}
`)
	r := verify.Check(p, verify.Options{MaxStates: 200})
	if r.OK() || len(r.Holds) != 0 {
		t.Fatalf("holds %v, ok %v: an arithmetic use of a growing int must not prove", r.Holds, r.OK())
	}
	if len(r.Findings) == 0 || len(r.Findings[0].Trace) != 9 {
		t.Errorf("want the 9-tool counterexample, got %+v", r.Findings)
	} else {
		replays(t, p, &r.Findings[0])
		runFails(t, p, &r.Findings[0])
	}
	if !r.Incomplete || r.Bound == nil || r.Bound.Kind != verify.BoundStates {
		t.Errorf("incomplete %v, bound %v: the exploration cannot end", r.Incomplete, r.Bound)
	}

	p = mustLoad(t, counterPolicy+`property "c is never negative" {
  always = "state.c >= 0"
}
`)
	if r := verify.Check(p, verify.Options{MaxStates: 200}); !r.OK() || len(r.Holds) != 1 || r.States > 5 {
		t.Errorf("a counter compared with a constant is clamped and proved: ok %v, %d states, findings %+v", r.OK(), r.States, r.Findings)
	}
}

// A string slot that grows on every tool event: each state holds a longer
// text. The memory bound stops it (estimated bytes held), as incomplete.
func TestGrowingStringStopsAtMemoryBound(t *testing.T) {
	p := mustLoad(t, `policy "grow" {}
slot "s" {
  type = string
}
group "g" {
  rule "tool_grows" {
    on  = "tool"
    set = { s = "state.s + 'xxxxxxxxxxxxxxxx'" }
  }
}
property "the text is short" {
  always = "len(state.s) < 100000000"
}
`)
	r := verify.Check(p, verify.Options{MaxBytes: 4 << 20})
	if !r.Incomplete || r.OK() || r.Bound == nil || r.Bound.Kind != verify.BoundMemory {
		t.Fatalf("incomplete %v, ok %v, bound %v after %d states; want the memory bound", r.Incomplete, r.OK(), r.Bound, r.States)
	}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{"incomplete: the exploration stopped at the memory limit of 4 MiB", "bound grow: the text is short (no violation within", "slots s were still taking new values"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "ok    ") {
		t.Errorf("a cut exploration prints ok:\n%s", b.String())
	}
}

// The transition and time bounds stop the exploration, named.
func TestTransitionAndTimeBounds(t *testing.T) {
	p := load(t, "wipe_memory")
	r := verify.Check(p, verify.Options{MaxTransitions: 1000})
	if !r.Incomplete || r.Bound == nil || r.Bound.Kind != verify.BoundTransitions {
		t.Errorf("transitions: incomplete %v, bound %v", r.Incomplete, r.Bound)
	}
	calls := 0
	r = verify.Check(p, verify.Options{Stop: func() bool { calls++; return calls > 2 }, TimeLimit: 30})
	if !r.Incomplete || r.Bound == nil || r.Bound.Kind != verify.BoundTime || r.Bound.Limit != 30 {
		t.Errorf("time: incomplete %v, bound %v", r.Incomplete, r.Bound)
	}
	// A depth bound is the author's: bounded, not incomplete, and what it
	// did not reach is a warning, not a dead rule.
	r = verify.Check(p, verify.Options{Depth: 1})
	if r.Incomplete || !r.Bounded || r.Bound.Kind != verify.BoundDepth {
		t.Errorf("depth: incomplete %v, bounded %v, bound %v", r.Incomplete, r.Bounded, r.Bound)
	}
	for _, f := range r.Findings {
		if f.Kind == verify.KindDeadRule || f.Kind == verify.KindUnreached {
			t.Errorf("a depth-bounded run claims %s: %s", f.Name, f.Message)
		}
	}
	bounded := 0
	for _, w := range r.Warnings {
		if w.Bounded {
			bounded++
			if !strings.Contains(w.Message, "in the ") || !strings.Contains(w.Message, "--depth 1") {
				t.Errorf("a bounded warning does not name its bound: %s", w.Message)
			}
		}
	}
	if bounded == 0 {
		t.Error("no rule reported unseen at depth 1")
	}
}

// The limits table (docs/limits.md) states verify's default bounds: moving one
// without the README fails here.
func TestDefaultBoundsInReadme(t *testing.T) {
	b, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, want := range []string{
		fmt.Sprintf("(`verify.DefaultMaxStates`, `--max-states`) | %s |", thousands(verify.DefaultMaxStates)),
		fmt.Sprintf("(`verify.DefaultMaxTransitions`, `--max-transitions`) | %s |", thousands(verify.DefaultMaxTransitions)),
		fmt.Sprintf("(`verify.DefaultMaxBytes`, `--max-memory`) | %d MiB,", verify.DefaultMaxBytes>>20),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("docs/limits.md lacks %q", want)
		}
	}
}

// thousands writes n with commas, as the README does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// An incomplete exploration names only the exact slots still taking new
// values when it stopped: here s grows without end, while f, kept exact
// too (its uses allow no abstraction), cycles through four values. The
// message must not blame f.
func TestIncompleteNamesOnlyTheSlotsStillGrowing(t *testing.T) {
	p := mustLoad(t, `policy "grow" {}
slot "s" {
  type = string
}
slot "f" {
  type = int
}
group "g" {
  rule "tool_grows" {
    on  = "tool"
    set = {
      s = "state.s + 'x'"
      f = "(state.f * 7 + 1) % 10"
    }
  }
}
property "the text is short" {
  always = "len(state.s) < 100000000 && state.f < 10"
}
`)
	r := verify.Check(p, verify.Options{MaxStates: 50})
	if !r.Incomplete {
		t.Fatalf("incomplete %v after %d states; want the state bound", r.Incomplete, r.States)
	}
	if !slices.Equal(r.ExactSlots, []string{"s"}) {
		t.Errorf("exact slots named %v, want [s]: f stopped growing", r.ExactSlots)
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "slots s were still taking new values") || strings.Contains(b.String(), "s, f") || strings.Contains(b.String(), "f, s") {
		t.Errorf("the report blames the wrong slots:\n%s", b.String())
	}
}
