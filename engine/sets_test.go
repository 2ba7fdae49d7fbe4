package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
)

// A set of a constant is known before any event and applied from the
// rule; it must write what evaluating it would, of every type, and a
// later rule's write to the same slot still wins.
func TestConstantSetsWriteTheirValues(t *testing.T) {
	e := engineOf(t, `
policy "sets" {}
slot "s" {
  type    = string
  initial = ""
}
slot "b" {
  type    = bool
  initial = false
}
slot "n" {
  type    = number
  initial = 0
}
slot "late" {
  type    = string
  initial = ""
}
group "one" {
  rule "constants" {
    on  = "request"
    set = { s = "'written'", b = "true", n = "2.5 * 2", late = "'first'" }
  }
}
group "two" {
  rule "later" {
    on  = "request"
    set = { late = "event.window_id" }
  }
}
`)
	s := e.NewSession()
	if _, err := s.Decide(event(t, `{"event":"request","window_id":"w1"}`)); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": "written", "b": true, "n": 5.0, "late": "w1"}
	if got := s.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("state %v, want %v", got, want)
	}
}

// A constant set that is not a finite number is refused when the rule
// fires, as any other set of one is, and the state stays as it was.
func TestConstantSetOfInfinityIsRefused(t *testing.T) {
	e := engineOf(t, `
policy "inf" {}
slot "n" {
  type    = number
  initial = 1
}
group "g" {
  rule "overflows" {
    on  = "request"
    set = { n = "1e308 * 10" }
  }
}
`)
	s := e.NewSession()
	_, err := s.Decide(event(t, `{"event":"request"}`))
	if err == nil || !strings.Contains(err.Error(), "finite numbers only") {
		t.Fatalf("error %v, want the set refused as not finite", err)
	}
	if got := s.State()["n"]; got != 1.0 {
		t.Fatalf("n is %v after a refused event, want 1", got)
	}
}

func engineOf(t *testing.T, src string) *engine.Engine {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: "sets.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return engine.New(p)
}
