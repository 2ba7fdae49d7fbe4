package engine

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

// TestEffectsBufferKeepsItsGrowth: a session whose events only ever
// compute their effects keeps the buffer it grew for them, so the next
// event appends into it.
func TestEffectsBufferKeepsItsGrowth(t *testing.T) {
	p, diags := rules.Load(rules.Source{Name: "computed.hcl", Bytes: []byte(`
policy "computed" {}
group "g" {
  rule "r" {
    on = "request"
    effect "notify" {
      level = "info"
      text  = "event.window_id"
    }
  }
}
`)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := New(p).NewSession()
	ev, err := ParseEvent([]byte(`{"event":"request"}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.Decide(ev); err != nil {
			t.Fatal(err)
		}
	}
	if cap(s.effectsBuf) == 0 {
		t.Fatal("the effects buffer was not kept: every event allocates it again")
	}
}
