package graph

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Limits bound what one graph costs: the exploration behind it (as
// verify's state bound does) and the size of each diagram. Zero fields
// take the defaults. Wall time is the caller's to bound (the engine has
// no clock); every step here is bounded by these counts.
type Limits struct {
	// MaxStates bounds the abstract states verify explores.
	MaxStates int
	// MaxNodes bounds the states of one diagram.
	MaxNodes int
	// MaxEdges bounds the edges of one diagram (pairs of states).
	MaxEdges int
}

// The defaults: a diagram past a few hundred states is no longer read,
// and these keep a graph within seconds and tens of megabytes.
const (
	DefaultMaxStates = 50000
	DefaultMaxNodes  = 200
	DefaultMaxEdges  = 1000
)

func (l Limits) withDefaults() Limits {
	if l.MaxStates <= 0 {
		l.MaxStates = DefaultMaxStates
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxEdges <= 0 {
		l.MaxEdges = DefaultMaxEdges
	}
	return l
}

// LimitError says which bound a graph hit: no partial diagram is drawn,
// since one would pass for the whole machine.
type LimitError struct {
	Policy string
	Bound  string // "states", "nodes" or "edges"
	Limit  int
}

func (e *LimitError) Error() string {
	switch e.Bound {
	case "states":
		return fmt.Sprintf("%s: the exploration reached its bound of %d states before covering every reachable state; raise --max-states or draw fewer slots", e.Policy, e.Limit)
	case "nodes":
		return fmt.Sprintf("%s: the diagram has more than %d states; raise --max-nodes or draw fewer slots", e.Policy, e.Limit)
	}
	return fmt.Sprintf("%s: the diagram has more than %d edges; raise --max-edges or draw fewer slots", e.Policy, e.Limit)
}

// view accumulates one diagram while verify explores.
type view struct {
	slots []*rules.Slot
	names []string
	// belongs: whether a rule that fires without moving the view is drawn.
	belongs map[string]bool
	nodes   map[string]bool
	edges   map[[2]string]map[string][]string // from, to -> event -> rules
	full    string                            // the bound hit, if any
}

// explore runs one verify exploration and projects every transition it
// sees onto each view.
func explore(p *rules.Policy, slotViews [][]*rules.Slot, lim Limits) ([]*Diagram, error) {
	ds, errs, _, err := exploreWith(p, slotViews, lim, verify.Options{})
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return ds, nil
}

// exploreWith is explore with the exploration's own options (its state
// bound is lim's unless opts sets one) and the verify result kept; a view
// over its node or edge bound has its error, the others their diagrams.
func exploreWith(p *rules.Policy, slotViews [][]*rules.Slot, lim Limits, opts verify.Options) ([]*Diagram, []error, *verify.Result, error) {
	// A policy loaded CompileOnUse has its rules read and compiled first.
	if err := p.CompilePlans(); err != nil {
		return nil, nil, nil, err
	}
	lim = lim.withDefaults()
	ruleIndex := map[string]int{}
	for i, r := range p.Rules {
		ruleIndex[r.Name] = i
	}
	var views []*view
	for _, ss := range slotViews {
		v := &view{slots: ss, belongs: map[string]bool{}, nodes: map[string]bool{}, edges: map[[2]string]map[string][]string{}}
		for _, s := range ss {
			v.names = append(v.names, s.Name)
		}
		for _, r := range p.Rules {
			v.belongs[r.Name] = touches(p, r, v.names)
		}
		views = append(views, v)
	}
	var parts []string
	id := func(v *view, vals []lang.Value) string {
		parts = parts[:0]
		for _, s := range v.slots {
			parts = append(parts, s.Enum[int(vals[s.Index].Num)])
		}
		return strings.Join(parts, " × ")
	}
	observe := func(from, to []lang.Value, event string, fired []string) {
		for _, v := range views {
			if v.full != "" {
				continue
			}
			a, b := id(v, from), id(v, to)
			var rs []string
			for _, r := range fired {
				// A move or a loop lists the rules that fired and belong to
				// this view: a rule of another group may have moved it.
				if v.belongs[r] {
					rs = append(rs, r)
				}
			}
			if a == b && len(rs) == 0 {
				continue
			}
			v.nodes[a], v.nodes[b] = true, true
			if len(v.nodes) > lim.MaxNodes {
				v.full = "nodes"
				continue
			}
			k := [2]string{a, b}
			evs := v.edges[k]
			if evs == nil {
				if len(v.edges) >= lim.MaxEdges {
					v.full = "edges"
					continue
				}
				evs = map[string][]string{}
				v.edges[k] = evs
			}
			// A move is drawn even if none of its rules belongs here.
			if _, ok := evs[event]; !ok {
				evs[event] = nil
			}
			for _, r := range rs {
				if !slices.Contains(evs[event], r) {
					evs[event] = append(evs[event], r)
				}
			}
		}
	}
	if opts.MaxStates == 0 {
		opts.MaxStates = lim.MaxStates
	}
	if also := opts.Observe; also != nil {
		opts.Observe = func(from, to []lang.Value, event string, fired []string) {
			observe(from, to, event, fired)
			also(from, to, event, fired)
		}
	} else {
		opts.Observe = observe
	}
	res := verify.Check(p, opts)
	if res.Incomplete {
		return nil, nil, res, &LimitError{Policy: p.Name, Bound: "states", Limit: opts.MaxStates}
	}
	order := func(r string) int {
		if i, ok := ruleIndex[r]; ok {
			return i
		}
		return -1
	}
	initial := make([]lang.Value, len(p.Slots))
	for _, s := range p.Slots {
		initial[s.Index] = s.Initial
	}
	out, errs := make([]*Diagram, len(views)), make([]error, len(views))
	for vi, v := range views {
		switch v.full {
		case "nodes":
			errs[vi] = &LimitError{Policy: p.Name, Bound: "nodes", Limit: lim.MaxNodes}
			continue
		case "edges":
			errs[vi] = &LimitError{Policy: p.Name, Bound: "edges", Limit: lim.MaxEdges}
			continue
		}
		d := &Diagram{Title: p.Name + ": " + strings.Join(v.names, " × ")}
		start := id(v, initial)
		v.nodes[start] = true
		for _, n := range sortedKeys(v.nodes) {
			d.Nodes = append(d.Nodes, Node{ID: n, Label: n, Initial: n == start})
		}
		keys := make([][2]string, 0, len(v.edges))
		for k := range v.edges {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		for _, k := range keys {
			e := Edge{From: k[0], To: k[1]}
			for _, ev := range sortedKeys(v.edges[k]) {
				rs := v.edges[k][ev]
				sort.SliceStable(rs, func(i, j int) bool { return order(rs[i]) < order(rs[j]) })
				e.Moves = append(e.Moves, Move{Event: ev, Rules: rs})
			}
			d.Edges = append(d.Edges, e)
		}
		collapse(d)
		out[vi] = d
	}
	return out, errs, res, nil
}

// touches: the rule names one of the slots in `from` or `to`, or names no
// enum slot at all (so that every rule that fires is drawn somewhere).
func touches(p *rules.Policy, r *rules.Rule, slots []string) bool {
	any := false
	for _, e := range append(slices.Clone(r.From), r.To...) {
		if slices.Contains(slots, e.Key) {
			return true
		}
		if s, ok := p.Slot(e.Key); ok && s.IsEnum() {
			any = true
		}
	}
	return !any
}
