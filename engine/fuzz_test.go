package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// FuzzDecide feeds arbitrary text as a stream of events, a line each (up
// to 64): a line is either rejected with an error, leaving the state as it
// was, or decided; nothing panics. Each line is decided twice, by Decide
// (the dispatch and state indexes, effects shared with the policy) and by
// DecideExplain (every rule tested in file order), on two sessions that
// must stay alike: the same rules, effects, errors and state.
func FuzzDecide(f *testing.F) {
	for _, s := range benchStream {
		f.Add(s)
	}
	f.Add(strings.Join(benchStream, "\n"))
	f.Add(`{"event":"turn_end","tokens":1e400}`)
	f.Add(`{"event":"tool","args":{"a":[1,{"b":null}]}}`)
	f.Add(`{"event":"tool","name":"t1","window_id":"w1"}` + "\n" + `{"event":"tool","name":"t2","window_id":"w9","idle":true}`)
	// wipe_memory, and a group whose rules start with literals on two
	// different facts (twoLiteralFacts).
	engines := []*engine.Engine{wipeMemory(f), load(f, twoLiteralFacts)}
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range engines {
			decideAlike(t, e, text)
		}
	})
}

// decideAlike decides the lines of text on e by the index and by the
// scan, and fails where they disagree.
func decideAlike(t *testing.T, e *engine.Engine, text string) {
	a, b := e.NewSession(), e.NewSession()
	lines := strings.SplitN(text, "\n", 65)
	if len(lines) > 64 {
		lines = lines[:64]
	}
	for i, line := range lines {
		ev, err := engine.ParseEvent([]byte(line))
		if err != nil {
			continue
		}
		before := string(a.Snapshot())
		da, errA := a.Decide(ev)
		db, errB := b.DecideExplain(ev)
		if errA != nil && string(a.Snapshot()) != before {
			t.Fatalf("line %d: a rejected event changed the state", i)
		}
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("line %d %s: indexed %v, scanned %v", i, line, errA, errB)
		}
		if errA == nil && (!slices.Equal(da.Rules, db.Rules) || fmt.Sprint(da.Effects) != fmt.Sprint(db.Effects)) {
			t.Fatalf("line %d %s:\nindexed %v %v\nscanned %v %v", i, line, da.Rules, da.Effects, db.Rules, db.Effects)
		}
		if string(a.Snapshot()) != string(b.Snapshot()) {
			t.Fatalf("line %d %s: the states differ:\n%s\n%s", i, line, a.Snapshot(), b.Snapshot())
		}
	}
}
