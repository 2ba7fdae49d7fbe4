package replay

import (
	"strings"
	"testing"
)

// TestBuildSetsOwnFacts: an event's own facts land at their names, each
// kind of fact, and a name the event does not have is an error, not a
// write to another fact.
func TestBuildSetsOwnFacts(t *testing.T) {
	r := &run{rp: &Replayer{bs: newBuilders()}, window: "w1", ctxWindow: 200000}
	ev, err := r.build(evTurnEnd, fs("outcome", "aborted"), fn("tool_results", 3))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{"outcome": "aborted", "tool_results": float64(3), "window_id": "w1"} {
		if got, _ := ev.Fact(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if _, err := r.build(evTurnEnd, fb("no_such_fact", true)); err == nil || !strings.Contains(err.Error(), `no fact "no_such_fact"`) {
		t.Errorf("an unknown fact: %v, want an error naming it", err)
	}
}

// Every kind the replay sends builds an event of its own name.
func TestEveryKindBuildsItsEvent(t *testing.T) {
	r := &run{rp: &Replayer{bs: newBuilders()}, window: "w1", ctxWindow: 200000}
	for k := range numEvents {
		ev, err := r.build(k)
		if err != nil || ev.Name() != eventNames[k] || eventNames[k] == "" {
			t.Errorf("kind %d: event %q (%v), want %q", k, ev.Name(), err, eventNames[k])
		}
	}
}
