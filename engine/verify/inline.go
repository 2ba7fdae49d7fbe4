package verify

import (
	"github.com/expr-lang/expr/ast"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// invariantAssert rewrites an invariant into a test-file condition over
// the final state alone, which is all a run's assert sees besides the
// decisions: each derived value is replaced by its definition, each param
// by its value in force and each fact by its value on the last event of
// the counterexample. The run then fails while the policy breaks the
// invariant on that sequence, and passes once it keeps it. It returns ""
// when the invariant cannot be rewritten.
func (m *model) invariantAssert(src string, last map[string]any) string {
	node, err := parse(src)
	if err != nil {
		return ""
	}
	derived := map[string]string{}
	for _, d := range m.p.Derived {
		if d.Prog != nil {
			derived[d.Name] = d.Prog.Source
		}
	}
	params := map[string]any{}
	for _, x := range m.p.Params {
		t, v := rules.ParamValue(x.Value)
		params[x.Name] = v.Interface(t)
	}
	ok := true
	var rewrite func(n *ast.Node, depth int)
	rewrite = func(n *ast.Node, depth int) {
		if depth > 16 {
			ok = false
			return
		}
		ast.Walk(n, visitor2(func(at *ast.Node) {
			switch x := (*at).(type) {
			case *ast.IdentifierNode:
				src, isDerived := derived[x.Value]
				if !isDerived {
					return
				}
				sub, err := parse(src)
				if err != nil {
					ok = false
					return
				}
				rewrite(&sub, depth+1)
				ast.Patch(at, sub)
			case *ast.MemberNode:
				id, isID := x.Node.(*ast.IdentifierNode)
				prop, isStr := x.Property.(*ast.StringNode)
				if !isID || !isStr {
					return
				}
				switch id.Value {
				case "param":
					lit, good := literal(params[prop.Value])
					ok = ok && good
					ast.Patch(at, lit)
				case "event":
					v, has := last[prop.Value]
					if !has {
						v = factDefault(prop.Value)
					}
					lit, good := literal(v)
					ok = ok && good
					ast.Patch(at, lit)
				}
			}
		}))
	}
	rewrite(&node, 0)
	if !ok {
		return ""
	}
	return node.String()
}

type visitor2 func(*ast.Node)

func (v visitor2) Visit(n *ast.Node) { v(n) }

// literal is x as an expression literal.
func literal(x any) (ast.Node, bool) {
	switch v := x.(type) {
	case bool:
		return &ast.BoolNode{Value: v}, true
	case string:
		return &ast.StringNode{Value: v}, true
	case float64:
		if v == float64(int64(v)) {
			return &ast.IntegerNode{Value: int(v)}, true
		}
		return &ast.FloatNode{Value: v}, true
	case int64:
		return &ast.IntegerNode{Value: int(v)}, true
	case int:
		return &ast.IntegerNode{Value: v}, true
	case []float64:
		return literal(toAny(v))
	case []any:
		arr := &ast.ArrayNode{}
		for _, e := range v {
			n, ok := literal(e)
			if !ok {
				return nil, false
			}
			arr.Nodes = append(arr.Nodes, n)
		}
		return arr, true
	}
	return &ast.NilNode{}, false
}

// factDefault is a common fact's contract default, as JSON gives it.
func factDefault(name string) any {
	for _, f := range contract.CommonFacts {
		if f.Name == name {
			if d, ok := f.Default.(int64); ok {
				return float64(d)
			}
			return f.Default
		}
	}
	return nil
}
