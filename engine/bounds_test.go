package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
)

// A policy can make one decision expensive only up to fixed bounds: these
// tests build the expensive shapes and require each to end quickly, with an
// error naming the rule and the expression where a bound was hit, and the
// state as it was.

// chainPolicy is n derived values, each reading the previous one three
// times; computed naively the last one costs 3^n evaluations.
func chainPolicy(n int) string {
	var b strings.Builder
	b.WriteString("policy \"chain\" {}\nslot \"seen\" {\n  type = int\n}\n")
	b.WriteString("derived \"d0\" {\n  value = \"event.tokens\"\n}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "derived \"d%d\" {\n  value = \"d%d + d%d - d%d\"\n}\n", i, i-1, i-1, i-1)
	}
	fmt.Fprintf(&b, "group \"g\" {\n  rule \"deep\" {\n    on = \"request\"\n    when = \"d%d > 0\"\n    set = { seen = \"d%d\" }\n  }\n}\n", n-1, n-1)
	return b.String()
}

func TestDerivedChainCostsTheSumOfItsParts(t *testing.T) {
	s := load(t, chainPolicy(60)).NewSession()
	ev := event(t, `{"event":"request","tokens":7}`)
	start := time.Now()
	var (
		d    *engine.Decision
		err  error
		done = make(chan struct{})
	)
	// Computed naively this never ends: fail instead of hanging.
	go func() { d, err = s.Decide(ev); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a 60-level derived chain did not finish in 10 s: derived values are not memoised")
	}
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rules) != 1 || s.State()["seen"] != 7.0 {
		t.Fatalf("rules %v, state %v", d.Rules, s.State())
	}
	if took > 250*time.Millisecond {
		t.Errorf("a 60-level derived chain took %v; memoised it is 60 evaluations", took)
	}
}

// doublingPolicy doubles the window id, a fact the host controls, levels
// times in derived values; rules then read the result (# in guard is the
// rule's number, so the guards differ).
func doublingPolicy(levels, rules int, guard string) string {
	var b strings.Builder
	b.WriteString("policy \"doubling\" {}\nslot \"seen\" {\n  type = int\n}\n")
	b.WriteString("derived \"s0\" {\n  value = \"event.window_id\"\n}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "derived \"s%d\" {\n  value = \"s%d + s%d\"\n}\n", i, i-1, i-1)
	}
	b.WriteString("group \"g\" {\n")
	for i := 0; i < rules; i++ {
		g := strings.ReplaceAll(guard, "#", fmt.Sprint(i))
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"request\"\n    when = %q\n    set = { seen = \"%d\" }\n  }\n", i, g, i)
	}
	b.WriteString("}\n")
	return b.String()
}

func bigWindowEvent(t *testing.T) string {
	return fmt.Sprintf(`{"event":"request","window_id":%q}`, strings.Repeat("w", 100_000))
}

func TestStringDoublingStopsAtTheValueBound(t *testing.T) {
	s := load(t, doublingPolicy(40, 1, "len(s40) > 0")).NewSession()
	before := string(s.Snapshot())
	ev := event(t, bigWindowEvent(t))
	start := time.Now()
	_, err := s.Decide(ev)
	took := time.Since(start)
	// 100 KB doubled four times is 1.6 MB: s4 = s3 + s3 is over the bound.
	if err == nil || !strings.Contains(err.Error(), "rule r0") || !strings.Contains(err.Error(), "s3 + s3") ||
		!strings.Contains(err.Error(), "a value is at most 1048576") || !strings.Contains(err.Error(), "the state is unchanged") {
		t.Fatalf("err = %v", err)
	}
	if took > time.Second {
		t.Errorf("string doubling over a 100 KB fact took %v", took)
	}
	if after := string(s.Snapshot()); after != before {
		t.Errorf("state changed by a rejected event")
	}
}

func TestWorkBudgetNamesTheRuleAndExpression(t *testing.T) {
	// Every rule builds s3 + the window id (900 KB) and scans it; no single
	// value is over the bound, but 16 MiB of work is reached near rule 8.
	s := load(t, doublingPolicy(3, 60, "(s3 + event.window_id) contains 'x#'")).NewSession()
	before := string(s.Snapshot())
	ev := event(t, bigWindowEvent(t))
	start := time.Now()
	_, err := s.Decide(ev)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "work budget") ||
		!strings.Contains(err.Error(), "s3 + event.window_id") {
		t.Fatalf("err = %v", err)
	}
	var rule int
	if _, e := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "rule r"):], "rule r%d", &rule); e != nil || rule < 6 || rule > 11 {
		t.Errorf("the budget should run out near rule 8: %v", err)
	}
	if took > 2*time.Second {
		t.Errorf("the work budget let a decision run %v", took)
	}
	if after := string(s.Snapshot()); after != before {
		t.Errorf("state changed by a rejected event")
	}
}

func TestNonFiniteSlotValueRejectsTheEvent(t *testing.T) {
	const src = `
policy "finite" {}
slot "x" {
  type = number
}
group "g" {
  rule "r" {
    on  = "compact_done"
    set = { x = "event.attempt == 1 ? event.tokens ** 1000 : (event.attempt == 2 ? -(event.tokens ** 1000) : event.tokens ** 1000 - event.tokens ** 1000)" }
  }
}
`
	s := load(t, src).NewSession()
	if _, err := s.Decide(event(t, `{"event":"compact_done","attempt":3,"tokens":1}`)); err != nil || s.State()["x"] != 0.0 {
		t.Fatalf("a finite value is written: %v %v", err, s.State())
	}
	before := string(s.Snapshot())
	for attempt, want := range map[int]string{1: "+Inf", 2: "-Inf", 3: "NaN"} {
		_, err := s.Decide(event(t, fmt.Sprintf(`{"event":"compact_done","attempt":%d,"tokens":10}`, attempt)))
		if err == nil || !strings.Contains(err.Error(), "rule r") || !strings.Contains(err.Error(), "set x") ||
			!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the state is unchanged") {
			t.Errorf("attempt %d: err = %v; want the %s refused", attempt, err, want)
		}
		if after := string(s.Snapshot()); after != before {
			t.Errorf("attempt %d: state changed: %s", attempt, after)
		}
	}
}
