package engine_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
)

// A small policy that exercises the engine's semantics, independent of the
// built-ins.
const semantics = `
policy "semantics" {}

param "limit" {
  type    = number
  default = 100
}

slot "phase" {
  values = ["idle", "armed", "done"]
}
slot "count" {
  type = int
}
slot "seen" {
  type = string
}
slot "prev" {
  type = int
}

derived "over" {
  value = "event.tokens > param.limit"
}

message "note" {
  text = "armed"
}

group "phase" {
  rule "arm" {
    on   = "request"
    from = { phase = "idle" }
    when = "over && event.enabled"
    to   = { phase = "armed" }
    set  = { count = "state.count + 1", prev = "state.count", seen = "event.window_id" }
    effect "notify" {
      level = "info"
      text  = "message.note + ' in ' + event.window_id"
    }
  }
  rule "shadowed" {
    on   = "request"
    from = { phase = "idle" }
    effect "status" {
      text = "'never when arm fired'"
    }
  }
  rule "finish" {
    on   = ["turn_end", "before_settle"]
    from = { phase = "armed" }
    when = "event.outcome == 'completed'"
    to   = { phase = "done" }
    effect "commit_reset" {
      continue = true
    }
  }
  rule "index" {
    on   = "compact_done"
    set  = { count = "int(param.limit / event.attempt)" }
  }
}

group "counter" {
  rule "count_every_request" {
    on  = "request"
    set = { count = "state.count + 10" }
  }
}
`

func load(t testing.TB, src string) *engine.Engine {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: "semantics.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return engine.New(p)
}

func event(t testing.TB, s string) engine.Event {
	t.Helper()
	ev, err := engine.ParseEvent([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestFirstMatchPerGroupInFileOrder(t *testing.T) {
	s := load(t, semantics).NewSession()
	d, err := s.Decide(event(t, `{"event":"request","tokens":500}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Rules, []string{"arm", "count_every_request"}) {
		t.Errorf("rules = %v; want arm (not shadowed) then the other group's rule", d.Rules)
	}
	if len(d.Effects) != 1 || d.Effects[0].Name != "notify" {
		t.Fatalf("effects = %v", d.Effects)
	}
	if text, _ := d.Effects[0].Arg("text"); text != "armed in w1" {
		t.Errorf("computed argument = %q", text)
	}
	d, _ = s.Decide(event(t, `{"event":"request","tokens":1}`))
	if !reflect.DeepEqual(d.Rules, []string{"count_every_request"}) {
		t.Errorf("from armed, no phase rule fires: %v", d.Rules)
	}
}

func TestAssignmentsSeeTheStateBeforeTheEvent(t *testing.T) {
	s := load(t, semantics).NewSession()
	if _, err := s.Decide(event(t, `{"event":"request","tokens":500,"window_id":"w7"}`)); err != nil {
		t.Fatal(err)
	}
	st := s.State()
	// Both groups read count = 0; the later group's write wins.
	if st["count"] != 10.0 || st["prev"] != 0.0 || st["seen"] != "w7" || st["phase"] != "armed" {
		t.Errorf("state = %v", st)
	}
}

func TestRejectedEventLeavesStateUnchanged(t *testing.T) {
	e := load(t, semantics)
	s := e.NewSession()
	s.Decide(event(t, `{"event":"request","tokens":500}`))
	before := string(s.Snapshot())
	for _, bad := range []string{`{"event":"nope"}`, `{"event":"request","tokenz":1}`, `{"event":"request","tokens":"x"}`, `[1]`, `{"event":"request"} {}`} {
		if _, err := engine.ParseEvent([]byte(bad)); err == nil {
			t.Errorf("%s: want a parse error", bad)
		}
	}
	// A runtime error (division by zero) rejects the event.
	_, err := s.Decide(event(t, `{"event":"compact_done","attempt":0}`))
	if err == nil || !strings.Contains(err.Error(), "division by zero") || !strings.Contains(err.Error(), "the state is unchanged") {
		t.Fatalf("err = %v", err)
	}
	if after := string(s.Snapshot()); after != before {
		t.Errorf("state changed by a rejected event:\n%s\n%s", before, after)
	}
	d, err := s.Decide(event(t, `{"event":"compact_done","attempt":4}`))
	if err != nil || s.State()["count"] != 25.0 || d.Rules[0] != "index" {
		t.Errorf("after a rejected event the session goes on: %v %v %v", err, s.State(), d.Rules)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	e := load(t, semantics)
	a := e.NewSession()
	a.Decide(event(t, `{"event":"request","tokens":500,"window_id":"w\"2"}`))
	snap := a.Snapshot()
	var m map[string]any
	if err := json.Unmarshal(snap, &m); err != nil {
		t.Fatalf("snapshot is not JSON: %v: %s", err, snap)
	}
	b := e.NewSession()
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.State(), b.State()) {
		t.Errorf("round trip: %v != %v", a.State(), b.State())
	}
	for _, bad := range []string{`{"phase":"nope"}`, `{"count":1.5}`, `{"count":"1"}`, `{"ghost":1}`, `not json`} {
		if err := b.Restore([]byte(bad)); err == nil {
			t.Errorf("restore %s: want an error", bad)
		}
		if !reflect.DeepEqual(a.State(), b.State()) {
			t.Errorf("restore %s changed the state", bad)
		}
	}
}

func TestExplainNamesTheFirstFalsePart(t *testing.T) {
	s := load(t, semantics).NewSession()
	d, err := s.DecideExplain(event(t, `{"event":"request","tokens":500,"enabled":false}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Consideration{
		{Group: "phase", Rule: "arm", Reason: "when: event.enabled is false"},
		{Group: "phase", Rule: "shadowed", Fired: true},
		{Group: "counter", Rule: "count_every_request", Fired: true},
	}
	if !reflect.DeepEqual(d.Explain, want) {
		t.Errorf("explain = %+v", d.Explain)
	}
	s.SetState(map[string]any{"phase": "done"})
	d, _ = s.DecideExplain(event(t, `{"event":"turn_end"}`))
	if d.Explain[0].Reason != `from: phase is "done", not "armed"` {
		t.Errorf("explain = %+v", d.Explain)
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	e := load(t, semantics)
	a, b := e.NewSession(), e.NewSession()
	a.Decide(event(t, `{"event":"request","tokens":500}`))
	if b.State()["phase"] != "idle" {
		t.Errorf("a decision in one session changed another: %v", b.State())
	}
}

func TestDerivedEvaluatesWithoutDeciding(t *testing.T) {
	s := load(t, semantics).NewSession()
	before := string(s.Snapshot())
	got := s.Derived(event(t, `{"event":"turn_end","tokens":150}`))
	if want := []engine.DerivedValue{{Name: "over", Value: true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("derived = %+v, want %+v", got, want)
	}
	if after := string(s.Snapshot()); after != before {
		t.Errorf("Derived changed the state")
	}
}

// A guard can come out true from a part that failed (`bad || true`): the
// event is rejected all the same, whether the rule evaluates something
// when it fires or nothing (its effects static, its sets constants), and
// the state is as it was.
func TestGuardTrueAfterAnErrorRejects(t *testing.T) {
	for _, rule := range []string{
		`set = { last = "'fixed'" }
    effect "notify" {
      level = "info"
      text  = "'static'"
    }`,
		`set = { last = "event.window_id" }`,
	} {
		e := load(t, `
policy "p" {}
slot "last" {
  type = string
}
group "g" {
  rule "r" {
    on   = "request"
    when = "int(event.window_id) > 0 || true"
    `+rule+`
  }
}
`)
		s := e.NewSession()
		if d, err := s.Decide(event(t, `{"event":"request","window_id":"1"}`)); err != nil || len(d.Rules) != 1 {
			t.Fatalf("%s: a guard without error: %v, %v", rule, d, err)
		}
		before := s.Snapshot()
		d, err := s.Decide(event(t, `{"event":"request","window_id":"x"}`))
		if err == nil || !strings.Contains(err.Error(), "rule r") {
			t.Fatalf("%s: decided %v, want the event rejected by rule r", rule, d)
		}
		if after := s.Snapshot(); string(after) != string(before) {
			t.Errorf("%s: the state changed from %s to %s", rule, before, after)
		}
	}
}
