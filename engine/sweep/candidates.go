package sweep

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// A Candidate is one value a param is explored at, besides the one in
// force, with the comparisons that make it a boundary.
type Candidate struct {
	Param string `json:"param"`
	// Value is as --set takes it: a number, true/false, a string, or a
	// list such as [5000].
	Value string   `json:"value"`
	Why   []string `json:"why"`
}

// Candidates lists the values each param of p (but those in fixed) is
// explored at besides the one in force, param by param in declaration
// order:
//   - a validation's boundary, on its accepting side (value >= 0 gives 0,
//     value > 0 gives 1, value < param.warning_limit gives one below the
//     warning limit in force; a condition on another param gives this one
//     its boundary too);
//   - each side of every comparison of the param with a constant or with
//     another param, in a guard, a derived value or a property, through
//     min and max and the derived values it feeds (value - 1, value,
//     value + 1 around the other side in force; one below and at it for a
//     strict comparison, at and one above for a non-strict one);
//   - the value of every other param that enters a comparison with the
//     same facts in the same place (reserve + reserve_margin and reserve +
//     warning_runway, both compared with the remaining budget), and one
//     each side of it: where the two thresholds swap;
//   - for a list: its shortest prefix the validation allows, and every
//     element at a validation's bound on an element; a bool: the other
//     value; a string: each literal it is compared with.
//
// A value that enters a comparison multiplied or divided is not solved
// for; nor is one compared with facts and nothing else (the fact domains
// take each side of such a threshold).
func Candidates(p *rules.Policy, fixed map[string]bool) []Candidate {
	a := &analysis{p: p, derived: map[string]string{}, params: map[string]*rules.Param{}, found: map[string]map[string][]string{}, shapes: map[string]map[string]bool{}}
	for _, d := range p.Derived {
		if d.Prog != nil {
			a.derived[d.Name] = d.Prog.Source
		}
	}
	for _, x := range p.Params {
		a.params[x.Name] = x
	}
	for _, src := range a.sources() {
		a.walk(src, "", false)
	}
	for _, x := range p.Params {
		for _, v := range x.Validations {
			a.walk(v.Condition, x.Name, true)
		}
	}
	a.siblings()
	var out []Candidate
	for _, x := range p.Params {
		if fixed[x.Name] {
			continue
		}
		in := valueText(x.Value)
		vals := a.found[x.Name]
		for _, v := range a.order[x.Name] {
			if v == in {
				continue
			}
			out = append(out, Candidate{Param: x.Name, Value: v, Why: vals[v]})
		}
	}
	return out
}

type analysis struct {
	p       *rules.Policy
	derived map[string]string
	params  map[string]*rules.Param
	// found holds, per param, each value and why; order keeps the order
	// they were found in.
	found map[string]map[string][]string
	order map[string][]string
	// shapes: a comparison's fact side and its param side with the param
	// cut out, to the params seen in that place.
	shapes     map[string]map[string]bool
	shapeOrder []string
}

// sources are the expressions the policy evaluates or verify checks:
// guards, assignments and effect arguments, derived values, property
// conditions and scope markers.
func (a *analysis) sources() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if a.p.CompilePlans() == nil {
		for _, plan := range a.p.Plans {
			for _, pg := range plan.Groups {
				for _, cr := range pg.Rules {
					if cr.When != nil {
						add(cr.When.Source)
					}
					for _, s := range cr.Set {
						add(s.Prog.Source)
					}
					for _, e := range cr.Effects {
						for _, arg := range e.Args {
							if arg.Prog.Const == nil {
								add(arg.Prog.Source)
							}
						}
					}
				}
			}
		}
	}
	for _, d := range a.p.Derived {
		if d.Prog != nil {
			add(d.Prog.Source)
		}
	}
	for _, pr := range a.p.Properties {
		if pr.Always != nil {
			add(pr.Always.Source)
		}
		for _, conds := range []map[string]*lang.Program{pr.When, pr.CycleEndsWhen, pr.InputWhen} {
			for _, k := range slices.Sorted(maps.Keys(conds)) {
				add(conds[k].Source)
			}
		}
		for _, mk := range pr.ScopeMarkers() {
			if mk.When != nil {
				add(mk.When.Source)
			}
		}
	}
	return out
}

// add records value v of param name, found because of why.
func (a *analysis) add(name, v, why string) {
	if a.found[name] == nil {
		a.found[name] = map[string][]string{}
		if a.order == nil {
			a.order = map[string][]string{}
		}
	}
	if _, ok := a.found[name][v]; !ok {
		a.order[name] = append(a.order[name], v)
	}
	if !slices.Contains(a.found[name][v], why) {
		a.found[name][v] = append(a.found[name][v], why)
	}
}

// inline parses src with every derived value it names written out, so a
// comparison through a derived value is seen with what it reads.
func (a *analysis) inline(src string) (ast.Node, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, false
	}
	node := tree.Node
	for range len(a.derived) + 1 {
		changed := false
		ast.Walk(&node, patcher(func(at *ast.Node) {
			id, ok := (*at).(*ast.IdentifierNode)
			if !ok {
				return
			}
			d, ok := a.derived[id.Value]
			if !ok {
				return
			}
			sub, err := parser.Parse(d)
			if err != nil {
				return
			}
			ast.Patch(at, sub.Node)
			changed = true
		}))
		if !changed {
			break
		}
	}
	return node, true
}

type patcher func(*ast.Node)

func (v patcher) Visit(n *ast.Node) { v(n) }

// walk finds the comparisons of src. In a validation, self is the param
// and `value` stands for it, and only the accepting side of a boundary is
// a candidate (the other is outside by construction).
func (a *analysis) walk(src, self string, validation bool) {
	node, ok := a.inline(src)
	if !ok {
		return
	}
	ast.Walk(&node, patcher(func(at *ast.Node) {
		switch n := (*at).(type) {
		case *ast.BinaryNode:
			switch n.Operator {
			case "<", "<=", ">", ">=", "==", "!=":
				a.compare(n.Left, n.Right, n.Operator, self, validation, src)
				a.compare(n.Right, n.Left, flip(n.Operator), self, validation, src)
			}
		case *ast.BuiltinNode:
			switch n.Name {
			case "min", "max":
				for i := range n.Arguments {
					for j := range n.Arguments {
						if i != j {
							a.compare(n.Arguments[i], n.Arguments[j], n.Name, self, false, src)
						}
					}
				}
			}
		}
	}))
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// reads is what a subtree reads: params (with `value` as self), and
// whether it reads facts or slots.
type reads struct {
	params   []string
	additive bool // every param is reached through +, -, int, float, min, max or a branch
	facts    bool
	state    bool
}

func readsOf(n ast.Node, self string) reads {
	var r reads
	r.additive = true
	var visit func(n ast.Node, additive bool)
	visit = func(n ast.Node, additive bool) {
		switch x := n.(type) {
		case *ast.IdentifierNode:
			if x.Value == "value" && self != "" {
				r.addParam(self, additive)
			}
		case *ast.MemberNode:
			if id, ok := x.Node.(*ast.IdentifierNode); ok {
				if s, ok := x.Property.(*ast.StringNode); ok {
					switch id.Value {
					case "param":
						r.addParam(s.Value, additive)
						return
					case "event":
						r.facts = true
						return
					case "state":
						r.state = true
						return
					}
				}
			}
			visit(x.Node, false)
			visit(x.Property, false)
		case *ast.BinaryNode:
			keep := additive && (x.Operator == "+" || x.Operator == "-")
			visit(x.Left, keep)
			visit(x.Right, keep)
		case *ast.UnaryNode:
			visit(x.Node, additive && x.Operator == "-")
		case *ast.BuiltinNode:
			keep := additive && slices.Contains([]string{"int", "float", "min", "max"}, x.Name)
			for _, arg := range x.Arguments {
				visit(arg, keep)
			}
		case *ast.ConditionalNode:
			visit(x.Cond, false)
			visit(x.Exp1, additive)
			visit(x.Exp2, additive)
		case *ast.ChainNode:
			visit(x.Node, additive)
		case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode, *ast.BoolNode, *ast.NilNode:
		default:
			// Anything else (calls, closures, slices): what it reads
			// counts, but not as a value to solve for.
			ast.Walk(&n, patcher(func(at *ast.Node) {
				if m, ok := (*at).(*ast.MemberNode); ok {
					if id, ok := m.Node.(*ast.IdentifierNode); ok {
						if s, ok := m.Property.(*ast.StringNode); ok {
							switch id.Value {
							case "param":
								r.addParam(s.Value, false)
							case "event":
								r.facts = true
							case "state":
								r.state = true
							}
						}
					}
				}
				if id, ok := (*at).(*ast.IdentifierNode); ok && id.Value == "value" && self != "" {
					r.addParam(self, false)
				}
			}))
		}
	}
	visit(n, true)
	return r
}

func (r *reads) addParam(name string, additive bool) {
	if !slices.Contains(r.params, name) {
		r.params = append(r.params, name)
	}
	r.additive = r.additive && additive
}

// constant is a number literal, signed.
func constant(n ast.Node) (float64, bool) {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return float64(x.Value), true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.UnaryNode:
		if x.Operator == "-" {
			v, ok := constant(x.Node)
			return -v, ok
		}
	}
	return 0, false
}

// compare looks at side x compared by op with other: x reads one param
// additively and no facts, other is a constant or one other param; or x
// reads one param beside facts and other reads facts only (a threshold:
// see siblings).
func (a *analysis) compare(x, other ast.Node, op, self string, validation bool, src string) {
	rx := readsOf(x, self)
	if len(rx.params) != 1 {
		return
	}
	name := rx.params[0]
	prm := a.params[name]
	if prm == nil {
		return
	}
	if prm.Type.IsListType() || prm.Type.IsTupleType() {
		if validation {
			a.listBound(x, other, op, name)
		}
		return
	}
	if !rx.additive {
		return
	}
	cmp := x.String() + " " + op + " " + other.String()
	if prm.Type == cty.Bool {
		a.add(name, strconv.FormatBool(!prm.Value.True()), "the other value")
		return
	}
	if prm.Type == cty.String {
		if s, ok := other.(*ast.StringNode); ok && (op == "==" || op == "!=") {
			a.add(name, s.Value, "compared with '"+s.Value+"'")
		}
		return
	}
	if prm.Type != cty.Number {
		return
	}
	if c, ok := constant(other); ok && !rx.facts {
		why := fmt.Sprintf("compared with %s", num(c))
		if validation {
			why = fmt.Sprintf("validation of %s: %s", self, cmp)
		}
		a.around(name, c, op, validation, why)
		return
	}
	ro := readsOf(other, self)
	if len(ro.params) == 1 && ro.additive && !ro.facts && !rx.facts && ro.params[0] != name {
		q := a.params[ro.params[0]]
		if q == nil || q.Type != cty.Number {
			return
		}
		v, _ := q.Value.AsBigFloat().Float64()
		why := fmt.Sprintf("compared with %s = %s", q.Name, num(v))
		if validation {
			why = fmt.Sprintf("validation of %s: %s", self, cmp)
		}
		a.around(name, v, op, validation, why)
		return
	}
	if len(ro.params) == 0 && ro.facts && !validation {
		// A threshold on facts: the place the param enters it.
		key := other.String() + " ~ " + strings.ReplaceAll(x.String(), "param."+name, "□")
		if a.shapes[key] == nil {
			a.shapes[key] = map[string]bool{}
			a.shapeOrder = append(a.shapeOrder, key)
		}
		a.shapes[key][name] = true
	}
}

// around adds the values on each side of a boundary at v: the param on
// the left of op.
func (a *analysis) around(name string, v float64, op string, validation bool, why string) {
	var vals []float64
	switch op {
	case "<":
		vals = []float64{v - 1, v}
	case "<=":
		vals = []float64{v, v + 1}
	case ">":
		vals = []float64{v + 1, v}
	case ">=":
		vals = []float64{v, v - 1}
	default: // ==, !=, min, max
		vals = []float64{v - 1, v, v + 1}
	}
	if validation {
		switch op {
		case "<", "<=", ">", ">=":
			vals = vals[:1] // the accepting side
		case "==":
			vals = []float64{v}
		default:
			return
		}
	}
	for _, x := range vals {
		a.add(name, num(x), why)
	}
}

// siblings gives each param that enters a fact threshold the values of
// the other params that enter the same threshold in the same place, and
// one each side: where the two thresholds cross.
func (a *analysis) siblings() {
	for _, key := range a.shapeOrder {
		facts, _, _ := strings.Cut(key, " ~ ")
		names := slices.Sorted(maps.Keys(a.shapes[key]))
		for _, p := range names {
			for _, q := range names {
				if p == q {
					continue
				}
				v, _ := a.params[q].Value.AsBigFloat().Float64()
				a.around(p, v, "min", false, fmt.Sprintf("crosses %s = %s (both compared with %s)", q, num(v), facts))
			}
		}
	}
}

// listBound reads a validation on a list param: a bound on its length
// gives its shortest prefix allowed, a bound on an element every element
// at that bound.
func (a *analysis) listBound(x, other ast.Node, op, name string) {
	c, ok := constant(other)
	if !ok {
		return
	}
	switch op {
	case ">":
		c++
	case "<":
		c--
	case ">=", "<=", "==":
	default:
		return
	}
	cur := a.params[name].Value
	n := cur.LengthInt()
	if b, ok := x.(*ast.BuiltinNode); ok && b.Name == "len" && op != "<" && op != "<=" {
		if k := int(c); k >= 1 && k < n {
			var parts []string
			for i, it := 0, cur.ElementIterator(); it.Next() && i < k; i++ {
				_, e := it.Element()
				parts = append(parts, valueText(e))
			}
			a.add(name, "["+strings.Join(parts, ", ")+"]", fmt.Sprintf("the shortest list validation allows (%d)", k))
		}
		return
	}
	if m, ok := x.(*ast.MemberNode); ok {
		if _, ok := m.Property.(*ast.IntegerNode); ok {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = num(c)
			}
			a.add(name, "["+strings.Join(parts, ", ")+"]", fmt.Sprintf("every element at validation's bound %s", num(c)))
		}
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// valueText writes a param value as --set takes it.
func valueText(v cty.Value) string {
	if v.IsNull() {
		return ""
	}
	if v.Type() == cty.String {
		return v.AsString()
	}
	if v.Type() == cty.Number {
		f, _ := v.AsBigFloat().Float64()
		return num(f)
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	var x any
	if json.Unmarshal(b, &x) == nil {
		if xs, ok := x.([]any); ok {
			parts := make([]string, len(xs))
			for i, e := range xs {
				parts[i] = fmt.Sprint(e)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	}
	return string(b)
}
