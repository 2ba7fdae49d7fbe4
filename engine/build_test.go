package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// An event built from Go values decides exactly as the same event parsed
// from JSON: same facts, same rules, same effects, same state.
func TestEventBuilderMatchesParse(t *testing.T) {
	eng := wipeMemory(t)
	parsed, built := eng.NewSession(), eng.NewSession()
	req, err := engine.NewEventBuilder("request")
	if err != nil {
		t.Fatal(err)
	}
	end, _ := engine.NewEventBuilder("turn_end")
	tool, _ := engine.NewEventBuilder("tool")
	rTokens := req.MustIndex("tokens", contract.Int)
	rWindow := req.MustIndex("window_id", contract.String)
	eOutcome := end.MustIndex("outcome", contract.String)
	eTokens := end.MustIndex("tokens", contract.Int)
	eResults := end.MustIndex("tool_results", contract.Int)
	tName := tool.MustIndex("name", contract.String)
	steps := []struct {
		json  string
		build func() (engine.Event, error)
	}{
		{`{"event":"request","tokens":150000,"window_id":"w1"}`, func() (engine.Event, error) {
			req.SetInt(rTokens, 150000)
			_ = req.SetString(rWindow, "w1")
			return req.Event()
		}},
		{`{"event":"request","tokens":185000,"window_id":"w1"}`, func() (engine.Event, error) {
			req.SetInt(rTokens, 185000)
			return req.Event()
		}},
		{`{"event":"tool","name":"wipe_memory"}`, func() (engine.Event, error) {
			_ = tool.SetString(tName, "wipe_memory")
			return tool.Event()
		}},
		{`{"event":"turn_end","outcome":"completed","tokens":186000,"tool_results":1}`, func() (engine.Event, error) {
			if err := end.SetString(eOutcome, "completed"); err != nil {
				t.Fatal(err)
			}
			end.SetInt(eTokens, 186000)
			end.SetInt(eResults, 1)
			return end.Event()
		}},
	}
	for _, s := range steps {
		pe, err := engine.ParseEvent([]byte(s.json))
		if err != nil {
			t.Fatal(err)
		}
		be, err := s.build()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"tokens", "window_id", "outcome", "name", "tool_results", "reserve"} {
			pv, pok := pe.Fact(f)
			bv, bok := be.Fact(f)
			if pok != bok || !reflect.DeepEqual(pv, bv) {
				t.Fatalf("%s: fact %s parsed %v, built %v", s.json, f, pv, bv)
			}
		}
		pd, err := parsed.Decide(pe)
		if err != nil {
			t.Fatal(err)
		}
		pd = pd.Clone()
		bd, err := built.Decide(be)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(pd.Rules, pd.Effects) != fmt.Sprint(bd.Rules, bd.Effects) {
			t.Fatalf("%s: parsed decided %v %v, built %v %v", s.json, pd.Rules, pd.Effects, bd.Rules, bd.Effects)
		}
		if len(bd.Rules) == 0 && s.json[10:14] == "tool" {
			t.Fatalf("%s: no rule fired; the step no longer tests a decision", s.json)
		}
	}
	if !reflect.DeepEqual(parsed.Snapshot(), built.Snapshot()) {
		t.Fatalf("states differ: %v vs %v", parsed.Snapshot(), built.Snapshot())
	}
}

func TestEventBuilderRejects(t *testing.T) {
	if _, err := engine.NewEventBuilder("nope"); err == nil {
		t.Fatal("unknown event accepted")
	}
	b, _ := engine.NewEventBuilder("turn_end")
	if _, _, err := b.Index("tokenz"); err == nil {
		t.Fatal("unknown fact accepted")
	}
	i := b.MustIndex("outcome", contract.String)
	if err := b.SetString(i, "exploded"); err == nil {
		t.Fatal("value outside the enum accepted")
	}
	ev, err := b.Event()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ev.Fact("outcome"); v != "completed" {
		t.Fatalf("rejected value changed the fact: %v", v)
	}
}

// A built event passes the same fact check as a decoded one.
func TestEventBuilderRefusesBadFacts(t *testing.T) {
	b, err := engine.NewEventBuilder("request")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fact string
		n    int64
		want string
	}{
		{"tokens", -1, `fact "tokens" must not be negative, not -1`},
		{"context_window", 0, `fact "context_window" must be at least 1, not 0`},
	} {
		b.Reset()
		b.SetInt(b.MustIndex(c.fact, contract.Int), c.n)
		if _, err := b.Event(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %d: got %v, want an error containing %q", c.fact, c.n, err, c.want)
		}
	}
}
