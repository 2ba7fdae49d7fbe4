package verify

import (
	"fmt"
	"slices"

	"github.com/expr-lang/expr/ast"
	"github.com/resetpolicy/resetpolicy/rules"
)

// orderCands are, for a rule that fired, the later rules of its group that
// move one of its enum slots to another value: the only ones that can make
// a file-order warning. Those whose guard requires a string fact to equal a
// literal (`event.name == 'x' && …`) are indexed by that literal, so an
// event is checked against the few it can match, not the whole group.
type orderCands struct {
	any   []int
	facts []string         // the facts byLit is keyed on
	byLit map[string][]int // fact + "\x00" + literal -> rule indexes
}

func (m *model) candidates(pg *rules.PlanGroup, winner int) *orderCands {
	key := pg.Rules[winner]
	if c, ok := m.orderIdx[key]; ok {
		return c
	}
	c := &orderCands{byLit: map[string][]int{}}
	for ri := winner + 1; ri < len(pg.Rules); ri++ {
		cr := pg.Rules[ri]
		if _, _, _, ok := conflict(key, cr); !ok {
			continue
		}
		f, lit, ok := requiredLiteral(cr)
		if !ok {
			c.any = append(c.any, ri)
			continue
		}
		if !slices.Contains(c.facts, f) {
			c.facts = append(c.facts, f)
		}
		c.byLit[f+"\x00"+lit] = append(c.byLit[f+"\x00"+lit], ri)
	}
	m.orderIdx[key] = c
	return c
}

// requiredLiteral finds a conjunct `event.F == 'lit'` at the top of a
// rule's guard: the rule matches only events whose F is lit.
func requiredLiteral(cr *rules.CompiledRule) (string, string, bool) {
	if cr.When == nil {
		return "", "", false
	}
	node, err := parse(cr.When.Source)
	if err != nil {
		return "", "", false
	}
	var find func(n ast.Node) (string, string, bool)
	find = func(n ast.Node) (string, string, bool) {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return "", "", false
		}
		switch b.Operator {
		case "&&", "and":
			if f, l, ok := find(b.Left); ok {
				return f, l, ok
			}
			return find(b.Right)
		case "==":
			for _, pair := range [][2]ast.Node{{b.Left, b.Right}, {b.Right, b.Left}} {
				f, isFact := eventFact(pair[0])
				lit, isLit := pair[1].(*ast.StringNode)
				if isFact && isLit {
					return f, lit.Value, true
				}
			}
		}
		return "", "", false
	}
	return find(node)
}

// checkOrder warns when a later rule of the group of a rule that fired
// would have matched too and moves an enum slot the fired rule also moves,
// to another value: the outcome then rests on file order alone. Each pair
// is reported once, with the first state it was seen in.
func (m *model) checkOrder(i int, n *node, in *instance, fired []string, st *step) {
	if len(fired) == 0 {
		return
	}
	plan := m.p.PlanFor(in.ev.Name())
	for gi := range plan.Groups {
		pg := &plan.Groups[gi]
		winner := -1
		for _, f := range fired {
			if ri, ok := m.ruleAt[pg][f]; ok {
				winner = ri
				break
			}
		}
		if winner < 0 {
			continue
		}
		c := m.candidates(pg, winner)
		check := c.any
		for _, f := range c.facts {
			v, _ := in.ev.Fact(f)
			if s, ok := v.(string); ok {
				check = append(slices.Clip(check), c.byLit[f+"\x00"+s]...)
			}
		}
		w := pg.Rules[winner]
		for _, ri := range check {
			cr := pg.Rules[ri]
			key := [2]*rules.CompiledRule{w, cr}
			if m.orderSeen[key] || !m.matchesAt(cr, n, in) {
				continue
			}
			slot, a, b, _ := conflict(w, cr)
			m.orderSeen[key] = true
			if c := m.p.Composition; c != nil && !m.opts.AllWarnings && c.RuleOrigin(w.Rule) == rules.Inherited && c.RuleOrigin(cr.Rule) == rules.Inherited {
				// The built-in's own order, known and tested with it: the
				// author's findings come first.
				m.hiddenWarnings++
				continue
			}
			m.warnings = append(m.warnings, Finding{
				Name: "order " + w.Rule.Name + " before " + cr.Rule.Name,
				Kind: KindOrder,
				Message: fmt.Sprintf("rules %s and %s of group %s both match; %s moves %s to %q and %s would move it to %q: only file order decides",
					w.Rule.Name, cr.Rule.Name, pg.Group.Name, w.Rule.Name, slot, a, cr.Rule.Name, b),
				Trace: m.trace(append(m.path(i), st)),
			})
		}
	}
}

// conflict finds an enum slot both rules set, to different values.
func conflict(a, b *rules.CompiledRule) (string, string, string, bool) {
	for _, ta := range a.To {
		for _, tb := range b.To {
			if ta.Slot == tb.Slot && ta.Value.Num != tb.Value.Num {
				return ta.Slot.Name, ta.Slot.Enum[int(ta.Value.Num)], tb.Slot.Enum[int(tb.Value.Num)], true
			}
		}
	}
	return "", "", "", false
}

// matchesAt evaluates a rule's from and guard on the event in node n.
func (m *model) matchesAt(cr *rules.CompiledRule, n *node, in *instance) bool {
	for _, fm := range cr.From {
		if fm.Mask&(1<<uint(n.vals[fm.Slot.Index].Num)) == 0 {
			return false
		}
	}
	if cr.When == nil {
		return true
	}
	return m.holdsIn(cr.When, in, n.vals)
}
