package engine_test

import (
	"math/rand"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// TestLineCacheWritesTheDecisionNow: a decision written through the
// cache eval keeps is the decision as AppendJSON writes it — its rules,
// effects and the session's state — after every decision of a long
// generated stream, and the state after every other way it changes
// (Reset, Restore, SetState, a refused Restore, SetValues); a cache moved
// to another session writes that one's state.
func TestLineCacheWritesTheDecisionNow(t *testing.T) {
	e := wipeMemory(t)
	s := e.NewSession()
	var c engine.LineCache
	checkDecision := func(when string, d engine.Decision) {
		t.Helper()
		if got, want := string(d.AppendJSONCached(nil, s, &c)), string(d.AppendJSON(nil, s)); got != want {
			t.Fatalf("%s: cache wrote\n%s\nthe decision is\n%s", when, got, want)
		}
	}
	check := func(when string) { t.Helper(); checkDecision(when, engine.Decision{}) }
	check("new session")
	effects := 0
	for i, line := range randomStream(rand.New(rand.NewSource(7)), 3000) {
		d, err := s.Decide(event(t, line))
		if err != nil {
			t.Fatal(err)
		}
		effects += len(d.Effects)
		checkDecision(line, *d)
		if i%500 == 499 {
			s.Reset()
			check("reset")
		}
	}
	if err := s.Restore([]byte(`{"request":"close-out","request_window":"w9"}`)); err != nil {
		t.Fatal(err)
	}
	check("restore")
	if err := s.SetState(map[string]any{"request": "none"}); err != nil {
		t.Fatal(err)
	}
	check("set state")
	if err := s.Restore([]byte(`{"request":"no such value"}`)); err == nil {
		t.Fatal("a bad restore was taken")
	}
	check("refused restore")
	vals := s.Values(nil)
	s.Reset()
	check("reset")
	s.SetValues(vals)
	check("set values")
	other := e.NewSession()
	if got, want := string(engine.Decision{}.AppendJSONCached(nil, other, &c)), string(engine.Decision{}.AppendJSON(nil, other)); got != want {
		t.Fatalf("another session: cache wrote %s, its state is %s", got, want)
	}
	if effects == 0 {
		t.Fatal("the stream made no effect: the strings' cache was not tried")
	}
}

// TestLineCacheStrings: a string is written as AppendJSONString writes it
// whatever the cache held before: the same string again, another of the
// same length (the same pair of entries), a third that pushes one of them
// out, one that needs escaping, one too short to be kept, and the empty
// string.
func TestLineCacheStrings(t *testing.T) {
	var c engine.LineCache
	e := wipeMemory(t).NewSession()
	for _, s := range []string{
		"Reset requested: this context window is wiped",
		"Reset requested: this context window is wiped",
		"Reset requested: this context window is wipeD",
		"Reset requested: this context window is wiped",
		`a "quoted" <tag> & line` + "\n\t\u2028",
		"short",
		"",
		"tool_request_marks_window",
		"turn_end_commits_request_",
		"tool_request_marks_window",
		"a_third_name_of_length_25",
		"turn_end_commits_request_",
		"tool_request_marks_window",
		"a_third_name_of_length_25",
	} {
		d := engine.Decision{Rules: []string{s}, Effects: []engine.Effect{{Name: s, Args: []engine.Arg{{Name: s, Value: s}}}}}
		if got, want := string(d.AppendJSONCached(nil, e, &c)), string(d.AppendJSON(nil, e)); got != want {
			t.Fatalf("%q: cache wrote\n%s\nwant\n%s", s, got, want)
		}
	}
}
