package engine_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// effectsPolicy fires up to three rules on one request, one per group:
// two whose effects are all static and a third that computes one.
const effectsPolicy = `
policy "effects" {}

group "one" {
  rule "first" {
    on   = "request"
    when = "event.enabled"
    effect "notify" {
      level = "info"
      text  = "'first'"
    }
    effect "status" {
      text = "'first status'"
    }
  }
}

group "two" {
  rule "second" {
    on   = "request"
    when = "event.tokens > 10"
    effect "notify" {
      level = "info"
      text  = "'second'"
    }
  }
}

group "three" {
  rule "third" {
    on   = "request"
    when = "event.tokens > 100 || !event.enabled"
    effect "notify" {
      level = "info"
      text  = "'third in ' + event.window_id"
    }
  }
}
`

func effectTexts(d *engine.Decision) []string {
	out := []string{}
	for _, e := range d.Effects {
		text, _ := e.Arg("text")
		out = append(out, fmt.Sprint(text))
	}
	return out
}

// TestEffectsOfEveryRuleInOrder: each decision holds the effects of the
// rules that fired, in order, whatever the events before it were; a
// rule's fixed effects are not changed by the decisions that shared them,
// nor by a reader appending to a decision's effects.
func TestEffectsOfEveryRuleInOrder(t *testing.T) {
	s := load(t, effectsPolicy).NewSession()
	steps := []struct {
		enabled bool
		tokens  int
		want    []string
	}{
		{true, 1, []string{"first", "first status"}},
		{true, 50, []string{"first", "first status", "second"}},
		{true, 500, []string{"first", "first status", "second", "third in w1"}},
		{true, 1, []string{"first", "first status"}},
		{false, 1, []string{"third in w1"}},
		{false, 50, []string{"second", "third in w1"}},
		{true, 50, []string{"first", "first status", "second"}},
		{false, 5, []string{"third in w1"}},
		{true, 2, []string{"first", "first status"}},
		{true, 500, []string{"first", "first status", "second", "third in w1"}},
		{false, 20, []string{"second", "third in w1"}},
		{true, 3, []string{"first", "first status"}},
	}
	for i, st := range steps {
		d, err := s.Decide(event(t, fmt.Sprintf(`{"event":"request","enabled":%v,"tokens":%d}`, st.enabled, st.tokens)))
		if err != nil {
			t.Fatal(err)
		}
		if got := effectTexts(d); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("step %d (enabled %v, tokens %d): effects %q, want %q", i, st.enabled, st.tokens, got, st.want)
		}
		// A reader may append to what it was given.
		_ = append(d.Effects, engine.Effect{Name: "reader's own"})
	}
}

// TestFixedEffectsAllocateNothing: once a session has decided a few
// events, an event whose rules' effects are all fixed allocates nothing,
// one rule or several, and fixed effects beside a computed one add no
// allocation to the computed one's.
func TestFixedEffectsAllocateNothing(t *testing.T) {
	s := load(t, effectsPolicy).NewSession()
	ev := func(enabled bool, tokens int) engine.Event {
		return event(t, fmt.Sprintf(`{"event":"request","enabled":%v,"tokens":%d}`, enabled, tokens))
	}
	allocs := func(e engine.Event) float64 {
		return testing.AllocsPerRun(50, func() {
			if _, err := s.Decide(e); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, e := range []engine.Event{ev(true, 1), ev(true, 50)} {
		if n := allocs(e); n != 0 {
			t.Errorf("%v allocations for rules with fixed effects only", n)
		}
	}
	alone := allocs(ev(false, 1))
	for _, c := range []struct {
		what string
		e    engine.Event
	}{{"after one rule's fixed effect", ev(false, 50)}, {"after two rules' fixed effects", ev(true, 500)}} {
		if n := allocs(c.e); n != alone {
			t.Errorf("a computed effect costs %v allocations alone and %v %s", alone, n, c.what)
		}
	}
}
