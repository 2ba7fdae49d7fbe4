package engine_test

import (
	"math/rand"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// TestStateCacheWritesTheStateNow: the cached state JSON eval writes is
// the session's state after every decision of a long generated stream, and
// after every other way the state changes (Reset, Restore, SetValues), and
// a cache moved to another session writes that one's state.
func TestStateCacheWritesTheStateNow(t *testing.T) {
	e := wipeMemory(t)
	s := e.NewSession()
	var c engine.StateCache
	check := func(when string) {
		t.Helper()
		if got, want := string(c.Append(nil, s)), string(s.AppendStateJSON(nil)); got != want {
			t.Fatalf("%s: cache wrote\n%s\nstate is\n%s", when, got, want)
		}
	}
	check("new session")
	for i, line := range randomStream(rand.New(rand.NewSource(7)), 3000) {
		if _, err := s.Decide(event(t, line)); err != nil {
			t.Fatal(err)
		}
		check(line)
		if i%500 == 499 {
			s.Reset()
			check("reset")
		}
	}
	if err := s.Restore([]byte(`{"request":"close-out","request_window":"w9"}`)); err != nil {
		t.Fatal(err)
	}
	check("restore")
	vals := s.Values(nil)
	s.Reset()
	check("reset")
	s.SetValues(vals)
	check("set values")
	other := e.NewSession()
	if got, want := string(c.Append(nil, other)), string(other.AppendStateJSON(nil)); got != want {
		t.Fatalf("another session: cache wrote %s, its state is %s", got, want)
	}
}
