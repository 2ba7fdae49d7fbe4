package verify

import (
	"math"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// A slot's values enter the state key abstracted (window ids renamed,
// counters clamped, ids relative to the newest) only where every
// expression of the policy — rules, derived values, effect arguments and
// properties — uses the slot in a way the abstraction cannot tell apart:
//
//   - a counter (an int grown from its own value) only in comparisons with
//     constants (literals and params), as `state.c + N` (N ≥ 0) on one side
//     of them, as `min(state.c, CONSTANT)` or as its own `state.c + N`;
//   - an id (an int grown from state and compared for equality) only in ==
//     and != against something other than a number, and as `state.i + N` or
//     `state.i` assigned to an id slot or given as an effect argument;
//   - a window (a string slot) only in == and != and copied whole, and is
//     assigned only the event's window, another string slot or a literal.
//
// Any other use (`state.c * 7 % 10`, `state.s + 'x'`) keeps the slot
// exact: its values are then as many as the policy makes, and an
// exploration that does not end stops at a bound and fails as incomplete.

// use is one expression source and where it sits.
type use struct {
	src    string
	target string // the slot a set assigns, or ""
	effect bool   // an effect argument
}

func policyUses(p *rules.Policy) []use {
	var out []use
	for _, plan := range p.Plans {
		for _, pg := range plan.Groups {
			for _, cr := range pg.Rules {
				if cr.When != nil {
					out = append(out, use{src: cr.When.Source})
				}
				for _, s := range cr.Set {
					out = append(out, use{src: s.Prog.Source, target: s.Slot.Name})
				}
				for _, e := range cr.Effects {
					for _, a := range e.Args {
						if a.Prog.Const == nil {
							out = append(out, use{src: a.Prog.Source, effect: true})
						}
					}
				}
			}
		}
	}
	for _, d := range p.Derived {
		if d.Prog != nil {
			out = append(out, use{src: d.Prog.Source})
		}
	}
	for _, pr := range p.Properties {
		if pr.Always != nil {
			out = append(out, use{src: pr.Always.Source})
		}
		for _, conds := range []map[string]*lang.Program{pr.When, pr.CycleEndsWhen, pr.InputWhen} {
			for _, w := range conds {
				out = append(out, use{src: w.Source})
			}
		}
	}
	return out
}

// stateSlot returns X for `state.X`.
func stateSlot(n ast.Node) (string, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "state" {
		return "", false
	}
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// plusConst matches `state.X + N` with N a whole literal, 0 or more.
func plusConst(n ast.Node) (string, *ast.MemberNode, bool) {
	b, ok := n.(*ast.BinaryNode)
	if !ok || b.Operator != "+" {
		return "", nil, false
	}
	lit, ok := b.Right.(*ast.IntegerNode)
	if !ok || lit.Value < 0 {
		return "", nil, false
	}
	s, ok := stateSlot(b.Left)
	if !ok {
		return "", nil, false
	}
	return s, b.Left.(*ast.MemberNode), true
}

// free reports whether n reads neither state nor event nor a derived
// value: a constant under the params in force.
func free(n ast.Node, derived map[string]bool) bool {
	ok := true
	ast.Walk(&n, visitor(func(x ast.Node) {
		switch x := x.(type) {
		case *ast.IdentifierNode:
			if x.Value == "state" || x.Value == "event" || derived[x.Value] {
				ok = false
			}
		}
	}))
	return ok
}

// usage is what the policy's expressions do with each slot.
type usage struct {
	total   map[string]int     // state.X occurrences
	counter map[string]int     // occurrences a clamped counter keeps
	id      map[string]int     // occurrences a relative id keeps
	window  map[string]int     // occurrences a renamed window keeps
	bound   map[string]float64 // the largest constant a counter meets
	// windowSet: every assignment of the string slot is a window id,
	// another string slot or a literal.
	badWindowSet map[string]bool
}

func analyseUses(p *rules.Policy) *usage {
	u := &usage{total: map[string]int{}, counter: map[string]int{}, id: map[string]int{}, window: map[string]int{}, bound: map[string]float64{}, badWindowSet: map[string]bool{}}
	derived := map[string]bool{}
	for _, d := range p.Derived {
		derived[d.Name] = true
	}
	params := map[string]any{}
	for _, x := range p.Params {
		t, v := rules.ParamValue(x.Value)
		params[x.Name] = v.Interface(t)
	}
	constant := func(n ast.Node) (float64, bool) {
		if !free(n, derived) {
			return 0, false
		}
		out, err := expr.Eval(n.String(), map[string]any{"param": params})
		if err != nil {
			return 0, false
		}
		return toFloat(out)
	}
	for _, us := range policyUses(p) {
		node, err := parse(us.src)
		if err != nil {
			continue
		}
		// The whole source: a copy or a growth step.
		if s, ok := stateSlot(node); ok && (us.target != "" || us.effect) {
			u.id[s]++
			u.window[s]++
		}
		if s, _, ok := plusConst(node); ok && (us.target != "" || us.effect) {
			u.id[s]++
			if s == us.target {
				u.counter[s]++
			}
		}
		if us.target != "" {
			switch x := node.(type) {
			case *ast.StringNode:
			default:
				if f, ok := eventFact(x); !ok || f != factWindow {
					if _, isSlot := stateSlot(x); !isSlot {
						u.badWindowSet[us.target] = true
					}
				}
			}
		}
		ast.Walk(&node, visitor(func(x ast.Node) {
			if s, ok := stateSlot(x); ok {
				u.total[s]++
			}
			switch b := x.(type) {
			case *ast.BinaryNode:
				switch b.Operator {
				case "<", "<=", ">", ">=", "==", "!=":
				default:
					return
				}
				for _, pair := range [][2]ast.Node{{b.Left, b.Right}, {b.Right, b.Left}} {
					side, other := pair[0], pair[1]
					s, direct := stateSlot(side)
					if !direct {
						var ok bool
						if s, _, ok = plusConst(side); !ok {
							continue
						}
					}
					if c, ok := constant(other); ok {
						u.counter[s]++
						u.bound[s] = math.Max(u.bound[s], c)
						if direct && (b.Operator == "==" || b.Operator == "!=") && c == 0 {
							u.id[s]++ // "no id yet"
						}
						continue
					}
					if direct && (b.Operator == "==" || b.Operator == "!=") {
						if _, isNum := other.(*ast.IntegerNode); !isNum {
							u.id[s]++
						}
						u.window[s]++
					}
				}
			case *ast.BuiltinNode:
				if b.Name != "min" || len(b.Arguments) != 2 {
					return
				}
				for i, a := range b.Arguments {
					s, ok := stateSlot(a)
					if !ok {
						continue
					}
					if c, ok := constant(b.Arguments[1-i]); ok {
						u.counter[s]++
						u.bound[s] = math.Max(u.bound[s], c)
					}
				}
			}
		}))
	}
	return u
}

// slotShape classifies the slots by how their expressions use them.
func slotShape(p *rules.Policy) shape {
	sh := shape{kinds: make([]slotKind, len(p.Slots)), caps: make([]float64, len(p.Slots))}
	grown := map[string]bool{}
	for _, r := range p.Plans {
		for _, pg := range r.Groups {
			for _, cr := range pg.Rules {
				for _, s := range cr.Set {
					if strings.Contains(s.Prog.Source, "state.") {
						grown[s.Slot.Name] = true
					}
				}
			}
		}
	}
	u := analyseUses(p)
	for i, s := range p.Slots {
		n := s.Name
		switch {
		case s.IsEnum():
			sh.kinds[i] = kindExact
		case s.Type == lang.String:
			if u.window[n] == u.total[n] && !u.badWindowSet[n] {
				sh.kinds[i] = kindWindow
			}
		case isTimeSlot(p, s):
			sh.kinds[i] = kindTime
		case s.Type == lang.Int && grown[n]:
			switch {
			case u.counter[n] == u.total[n] && u.total[n] > 0 && u.bound[n] < maxProbe:
				sh.kinds[i], sh.caps[i] = kindCounter, u.bound[n]+2
			case u.id[n] == u.total[n]:
				sh.kinds[i] = kindID
			}
		}
		if !s.IsEnum() && grown[n] && sh.kinds[i] == kindExact {
			sh.exact = append(sh.exact, n)
		}
	}
	return sh
}
