package graph

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Diagram is one state diagram: nodes are values of one enum slot, or
// combinations of several.
type Diagram struct {
	Title string
	Nodes []Node
	Edges []Edge
}

// EveryID is the ID of the pseudo-node "every state": an edge from it
// stands for the same move from every state of the diagram, drawn once (a
// session change, switching the policy off); a loop on it for rules that
// fire in every state without moving.
const EveryID = "*"

// Node is one state.
type Node struct {
	ID    string
	Label string
	// Initial marks the state a session starts in.
	Initial bool
	// Every marks the "every state" pseudo-node (ID EveryID).
	Every bool
	// Unreached marks an enum value no explored transition reaches.
	Unreached bool
}

// Edge is what the engine does from one state on some events: a move to
// another state, or a loop (From == To) for rules that fire without
// moving the diagram's slots. Parallel moves are merged: one edge per
// pair of states, with every event that makes it.
type Edge struct {
	From, To string
	Moves    []Move // by event name
}

// Move is one event of an edge and the rules that fired on it, in file
// order.
type Move struct {
	Event string
	Rules []string
}

// Events are the edge's event names, its visible label.
func (e Edge) Events() []string {
	out := make([]string, len(e.Moves))
	for i, m := range e.Moves {
		out[i] = m.Event
	}
	return out
}

// RuleText lists the edge's rules, one line per event ("event: rule,
// rule"): what the drawing puts behind the edge.
func (e Edge) RuleText() string {
	var lines []string
	for _, m := range e.Moves {
		lines = append(lines, m.Event+": "+strings.Join(m.Rules, ", "))
	}
	return strings.Join(lines, "\n")
}

// PerSlot draws one diagram per enum slot (or per slot named): what the
// engine does to that slot over every state verify explores. File order
// is the engine's, so an exit an earlier rule always pre-empts is not
// drawn; a rule that fires without moving the slot is a loop when it
// names the slot in `from` or `to`, or names no enum slot at all.
func PerSlot(p *rules.Policy, slots []string, lim Limits) ([]*Diagram, error) {
	var picked []*rules.Slot
	for _, s := range p.Slots {
		if s.IsEnum() && (len(slots) == 0 || slices.Contains(slots, s.Name)) {
			picked = append(picked, s)
		}
	}
	for _, name := range slots {
		if s, ok := p.Slot(name); !ok || !s.IsEnum() {
			return nil, notEnum(p, name)
		}
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("%s has no enum slot to draw", p.Name)
	}
	var views [][]*rules.Slot
	for _, s := range picked {
		views = append(views, []*rules.Slot{s})
	}
	ds, err := explore(p, views, lim)
	if err != nil {
		return nil, err
	}
	addUnreached(ds, picked)
	return ds, nil
}

// addUnreached draws, apart, each value of a per-slot diagram's slot that
// the exploration never reached.
func addUnreached(ds []*Diagram, picked []*rules.Slot) {
	for vi, d := range ds {
		if d == nil {
			continue
		}
		s := picked[vi]
		for _, v := range s.Enum {
			if !slices.ContainsFunc(d.Nodes, func(n Node) bool { return n.ID == v }) {
				d.Nodes = append(d.Nodes, Node{ID: v, Label: v, Unreached: true})
			}
		}
		order := func(id string) int {
			if id == EveryID {
				return -1
			}
			return slices.Index(s.Enum, id)
		}
		sort.SliceStable(d.Nodes, func(i, j int) bool { return order(d.Nodes[i].ID) < order(d.Nodes[j].ID) })
	}
}

// Drawing is what one exploration of a policy gives: the verify result
// and every diagram drawn from it, so a command that needs the three
// explores once.
type Drawing struct {
	Result *verify.Result
	// PerSlot has one diagram per enum slot, or PerSlotErr the bound one
	// of them hit.
	PerSlot    []*Diagram
	PerSlotErr error
	// Product is the reachable product of the slots asked for, if any, or
	// ProductErr the bound it hit.
	Product    *Diagram
	ProductErr error
}

// Draw explores p once, with the verify options given (the state bound
// is theirs, or lim's when they set none; their observer, if any, sees
// every transition too), and draws from that one
// exploration a diagram per enum slot and, when product names slots,
// their reachable product. An exploration cut by its state bound draws
// nothing: err says so, and the result says where it stopped.
func Draw(p *rules.Policy, product []string, lim Limits, opts verify.Options) (*Drawing, error) {
	var picked []*rules.Slot
	for _, s := range p.Slots {
		if s.IsEnum() {
			picked = append(picked, s)
		}
	}
	var views [][]*rules.Slot
	for _, s := range picked {
		views = append(views, []*rules.Slot{s})
	}
	var prod []*rules.Slot
	for _, name := range product {
		s, ok := p.Slot(name)
		if !ok || !s.IsEnum() {
			return nil, notEnum(p, name)
		}
		prod = append(prod, s)
	}
	if len(prod) > 0 {
		views = append(views, prod)
	}
	ds, errs, res, err := exploreWith(p, views, lim, opts)
	out := &Drawing{Result: res}
	if err != nil {
		return out, err
	}
	if len(picked) == 0 {
		out.PerSlotErr = fmt.Errorf("%s has no enum slot to draw", p.Name)
	}
	for vi := range picked {
		if errs[vi] != nil && out.PerSlotErr == nil {
			out.PerSlotErr = errs[vi]
		}
	}
	if out.PerSlotErr == nil {
		out.PerSlot = ds[:len(picked)]
		addUnreached(out.PerSlot, picked)
	}
	if len(prod) > 0 {
		out.Product, out.ProductErr = ds[len(picked)], errs[len(picked)]
		if out.Product != nil {
			out.Product.Title += " (reachable)"
		}
	}
	return out, nil
}

// Product draws the product of the named enum slots, restricted to the
// combinations verify reaches, with the moves it explored between them.
func Product(p *rules.Policy, slots []string, lim Limits) (*Diagram, error) {
	var view []*rules.Slot
	for _, name := range slots {
		s, ok := p.Slot(name)
		if !ok || !s.IsEnum() {
			return nil, notEnum(p, name)
		}
		view = append(view, s)
	}
	if len(view) == 0 {
		return nil, fmt.Errorf("%s: a product needs at least one --slot (enum slots: %s)", p.Name, strings.Join(enumSlots(p), ", "))
	}
	ds, err := explore(p, [][]*rules.Slot{view}, lim)
	if err != nil {
		return nil, err
	}
	ds[0].Title += " (reachable)"
	return ds[0], nil
}

func notEnum(p *rules.Policy, name string) error {
	return fmt.Errorf("%s: %s is not an enum slot (enum slots: %s)", p.Name, name, strings.Join(enumSlots(p), ", "))
}

func enumSlots(p *rules.Policy) []string {
	var out []string
	for _, s := range p.Slots {
		if s.IsEnum() {
			out = append(out, s.Name)
		}
	}
	return out
}

// collapse draws "from every state" once. For an event and a target,
// the rules that fire on a move to the target from every other state
// become one edge from the pseudo-node; so do the rules that fire
// without moving in every state, as a loop on it. What fires only in some
// states stays on their own edges, so no state is drawn with a rule that
// cannot fire there. Below three states there is nothing to save.
func collapse(d *Diagram) {
	var states []string
	for _, n := range d.Nodes {
		states = append(states, n.ID)
	}
	if len(states) < 3 {
		return
	}
	type key struct{ from, to string }
	at := map[key]map[string][]string{} // edge -> event -> rules
	for _, e := range d.Edges {
		m := map[string][]string{}
		for _, mv := range e.Moves {
			m[mv.Event] = slices.Clone(mv.Rules)
		}
		at[key{e.From, e.To}] = m
	}
	var every []Edge
	for _, target := range append([]string{""}, states...) {
		// k: the edge from state s that the event must be on.
		k := func(s string) key {
			if target == "" {
				return key{s, s}
			}
			return key{s, target}
		}
		first := states[0]
		if first == target {
			first = states[1]
		}
		for _, ev := range sortedKeys(at[k(first)]) {
			common := slices.Clone(at[k(first)][ev])
			for _, s := range states {
				if s != target {
					got := at[k(s)][ev]
					common = slices.DeleteFunc(common, func(r string) bool { return !slices.Contains(got, r) })
				}
			}
			if len(common) == 0 {
				continue
			}
			to := target
			if target == "" {
				to = EveryID
			}
			every = addMove(every, EveryID, to, Move{ev, common})
			strip := []key{key{target, target}}
			for _, s := range states {
				strip = append(strip, k(s))
			}
			for _, kk := range strip {
				if rs, ok := at[kk][ev]; ok {
					at[kk][ev] = slices.DeleteFunc(rs, func(r string) bool { return slices.Contains(common, r) })
				}
			}
		}
	}
	if len(every) == 0 {
		return
	}
	var kept []Edge
	for _, e := range d.Edges {
		var ms []Move
		for _, mv := range e.Moves {
			if rs := at[key{e.From, e.To}][mv.Event]; len(rs) > 0 {
				ms = append(ms, Move{mv.Event, rs})
			}
		}
		if len(ms) > 0 {
			e.Moves = ms
			kept = append(kept, e)
		}
	}
	d.Nodes = append([]Node{{ID: EveryID, Label: "every state", Every: true}}, d.Nodes...)
	d.Edges = append(every, kept...)
}

func addMove(es []Edge, from, to string, m Move) []Edge {
	for i := range es {
		if es[i].From == from && es[i].To == to {
			es[i].Moves = append(es[i].Moves, m)
			return es
		}
	}
	return append(es, Edge{From: from, To: to, Moves: []Move{m}})
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
