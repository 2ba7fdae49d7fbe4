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

// Diagram is one state diagram: nodes are values of one enum slot, or
// combinations of several.
type Diagram struct {
	Title string
	Nodes []Node
	Edges []Edge
}

// Node is one state. Notes are the rules that fire there without moving
// (event / rule: effects), folded into the node rather than drawn as loops.
type Node struct {
	ID      string
	Label   string
	Initial bool
	Notes   []string
}

// Edge is a move between two states: the rules (event / rule) that make it.
type Edge struct {
	From, To string
	Labels   []string
}

// PerSlot draws one diagram per enum slot (or per slot named) from the
// rules as written: a rule whose `to` sets the slot moves from each value
// its `from` allows (every value when it names none) to its target.
func PerSlot(p *rules.Policy, slots []string) ([]*Diagram, error) {
	var out []*Diagram
	for _, s := range p.Slots {
		if !s.IsEnum() || (len(slots) > 0 && !slices.Contains(slots, s.Name)) {
			continue
		}
		d := &Diagram{Title: p.Name + ": " + s.Name}
		for i, v := range s.Enum {
			d.Nodes = append(d.Nodes, Node{ID: v, Label: v, Initial: i == int(s.Initial.Num)})
		}
		edges := map[[2]string][]string{}
		for _, r := range p.Rules {
			from := s.Enum
			for _, e := range r.From {
				if e.Key == s.Name {
					from = enumValues(e)
				}
			}
			to := ""
			for _, e := range r.To {
				if e.Key == s.Name {
					if vals := enumValues(e); len(vals) == 1 {
						to = vals[0]
					}
				}
			}
			label := strings.Join(r.On, ",") + " / " + r.Name
			for _, f := range from {
				if to != "" && to != f {
					edges[[2]string{f, to}] = append(edges[[2]string{f, to}], label)
					continue
				}
				if len(from) < len(s.Enum) && len(r.Effects) > 0 {
					note(d, f, label+": "+effectNames(r))
				}
			}
		}
		d.Edges = sortedEdges(edges)
		out = append(out, d)
	}
	if len(slots) > 0 && len(out) != len(slots) {
		return nil, fmt.Errorf("%s: %s is not an enum slot (enum slots: %s)", p.Name, strings.Join(missing(slots, out, p), ", "), strings.Join(enumSlots(p), ", "))
	}
	return out, nil
}

// Product draws the product of the named enum slots, restricted to the
// combinations verify reaches, with the moves it explored between them.
func Product(p *rules.Policy, slots []string) (*Diagram, error) {
	var idx []int
	for _, name := range slots {
		s, ok := p.Slot(name)
		if !ok || !s.IsEnum() {
			return nil, fmt.Errorf("%s: %s is not an enum slot (enum slots: %s)", p.Name, name, strings.Join(enumSlots(p), ", "))
		}
		idx = append(idx, s.Index)
	}
	id := func(vals []lang.Value) string {
		parts := make([]string, len(idx))
		for i, si := range idx {
			parts[i] = p.Slots[si].Enum[int(vals[si].Num)]
		}
		return strings.Join(parts, " × ")
	}
	nodes := map[string]bool{}
	edges := map[[2]string][]string{}
	notes := map[string][]string{}
	var initial string
	verify.Check(p, verify.Options{Observe: func(from, to []lang.Value, event string, fired []string) {
		if initial == "" {
			initial = id(from)
		}
		a, b := id(from), id(to)
		nodes[a], nodes[b] = true, true
		for _, name := range fired {
			r := ruleNamed(p, name)
			label := event + " / " + name
			switch {
			case a != b && touches(r.To, slots):
				edges[[2]string{a, b}] = appendNew(edges[[2]string{a, b}], label)
			case a == b && !touches(r.To, slots) && touches(r.From, slots) && len(r.Effects) > 0:
				// Fires here without moving: folded into the node.
				notes[a] = appendNew(notes[a], label+": "+effectNames(r))
			}
		}
	}})
	d := &Diagram{Title: p.Name + ": " + strings.Join(slots, " × ") + " (reachable)"}
	for _, n := range sortedKeys(nodes) {
		nd := Node{ID: n, Label: n, Initial: n == initial}
		d.Nodes = append(d.Nodes, nd)
		for _, x := range notes[n] {
			note(d, n, x)
		}
	}
	d.Edges = sortedEdges(edges)
	return d, nil
}

func ruleNamed(p *rules.Policy, name string) *rules.Rule {
	for _, r := range p.Rules {
		if r.Name == name {
			return r
		}
	}
	return &rules.Rule{}
}

// touches: some entry names one of the slots.
func touches(es []rules.Entry, slots []string) bool {
	for _, e := range es {
		if slices.Contains(slots, e.Key) {
			return true
		}
	}
	return false
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

func note(d *Diagram, node, text string) {
	for i := range d.Nodes {
		if d.Nodes[i].ID == node && !slices.Contains(d.Nodes[i].Notes, text) {
			d.Nodes[i].Notes = append(d.Nodes[i].Notes, text)
		}
	}
}

func enumValues(e rules.Entry) []string {
	return e.Values()
}

func effectNames(r *rules.Rule) string {
	var names []string
	for _, e := range r.Effects {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}

func sortedEdges(m map[[2]string][]string) []Edge {
	var out []Edge
	for k, v := range m {
		out = append(out, Edge{From: k[0], To: k[1], Labels: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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

func missing(slots []string, got []*Diagram, p *rules.Policy) []string {
	var out []string
	for _, s := range slots {
		if !slices.Contains(enumSlots(p), s) {
			out = append(out, s)
		}
	}
	return out
}
