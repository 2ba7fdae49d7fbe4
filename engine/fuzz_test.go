package engine_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// FuzzDecide feeds arbitrary lines as events: a line is either rejected
// with an error, leaving the state as it was, or decided; nothing panics.
func FuzzDecide(f *testing.F) {
	for _, s := range benchStream {
		f.Add(s)
	}
	f.Add(`{"event":"turn_end","tokens":1e400}`)
	f.Add(`{"event":"tool","args":{"a":[1,{"b":null}]}}`)
	e := wipeMemory(f)
	f.Fuzz(func(t *testing.T, line string) {
		s := e.NewSession()
		before := string(s.Snapshot())
		ev, err := engine.ParseEvent([]byte(line))
		if err != nil {
			return
		}
		if _, err := s.Decide(ev); err != nil && string(s.Snapshot()) != before {
			t.Fatalf("a rejected event changed the state")
		}
	})
}
