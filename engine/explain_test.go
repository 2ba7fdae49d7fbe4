package engine_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/policies"
)

// An explanation shows the values a false comparison compared, and for a
// false derived value the part of it that was false.
func TestExplainShowsValues(t *testing.T) {
	p, diags := policies.Load("wipe_memory", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := engine.New(p).NewSession()
	reasons := map[string]string{}
	for _, line := range []string{`{"event":"request","tokens":100000}`, `{"event":"turn_end","outcome":"error"}`} {
		ev, err := engine.ParseEvent([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.DecideExplain(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Explain {
			reasons[c.Rule] = c.Reason
		}
	}
	for rule, want := range map[string]string{
		"budget_warning_staged_once_per_window": "when: warning_due is false, as remaining (100000) <= warning_at (28672) is false",
		"turn_end_user_abort_clears_everything": `when: event.outcome ("error") == "aborted" is false`,
	} {
		if reasons[rule] != want && !strings.Contains(reasons[rule], want) {
			t.Errorf("%s: reason %q, want %q", rule, reasons[rule], want)
		}
	}
}

// A Decide after a DecideExplain on the same session explains nothing:
// the session's one decision must not keep the earlier explanation.
func TestDecideAfterExplainExplainsNothing(t *testing.T) {
	p, diags := policies.Load("wipe_memory", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := engine.New(p).NewSession()
	ev, err := engine.ParseEvent([]byte(`{"event":"request","tokens":100000}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.DecideExplain(ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Explain) == 0 {
		t.Fatal("DecideExplain explained nothing")
	}
	if d, err = s.Decide(ev); err != nil {
		t.Fatal(err)
	}
	if d.Explain != nil {
		t.Fatalf("Decide kept the explanation of the event before: %d considerations", len(d.Explain))
	}
}
