package graph

import (
	"reflect"
	"testing"
)

func TestCollapse(t *testing.T) {
	mv := func(ev string, rs ...string) Move { return Move{ev, rs} }
	e := func(from, to string, ms ...Move) Edge { return Edge{From: from, To: to, Moves: ms} }
	abc := []Node{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	for _, c := range []struct {
		name  string
		nodes []Node
		edges []Edge
		want  []Edge // nil: unchanged
	}{
		{"a move from every other state, looping at the target", abc,
			[]Edge{e("a", "a", mv("off", "clear")), e("b", "a", mv("off", "clear")), e("c", "a", mv("off", "clear"))},
			[]Edge{e(EveryID, "a", mv("off", "clear"))}},
		{"nothing at the target is fine; another rule there stays", abc,
			[]Edge{e("a", "a", mv("off", "other")), e("b", "a", mv("off", "clear")), e("c", "a", mv("off", "clear"))},
			[]Edge{e(EveryID, "a", mv("off", "clear")), e("a", "a", mv("off", "other"))}},
		{"one state lacks the move: kept as drawn", abc,
			[]Edge{e("b", "a", mv("off", "clear"))}, nil},
		{"a loop in every state", abc,
			[]Edge{e("a", "a", mv("tool", "ack")), e("b", "b", mv("tool", "ack")), e("c", "c", mv("tool", "ack"))},
			[]Edge{e(EveryID, EveryID, mv("tool", "ack"))}},
		{"only the rules common to every state move to the pseudo-node", abc,
			[]Edge{e("b", "a", mv("off", "clear", "extra")), e("c", "a", mv("off", "clear"))},
			[]Edge{e(EveryID, "a", mv("off", "clear")), e("b", "a", mv("off", "extra"))}},
		{"two states: nothing to save", abc[:2],
			[]Edge{e("a", "a", mv("tool", "ack")), e("b", "b", mv("tool", "ack"))}, nil},
	} {
		d := &Diagram{Nodes: append([]Node(nil), c.nodes...), Edges: append([]Edge(nil), c.edges...)}
		collapse(d)
		want := c.want
		if want == nil {
			want = c.edges
		}
		if !reflect.DeepEqual(d.Edges, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, d.Edges, want)
		}
		if every := d.Nodes[0].Every; every != (c.want != nil) {
			t.Errorf("%s: every-state node drawn: %v", c.name, every)
		}
	}
}
