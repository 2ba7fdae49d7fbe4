package verify

import (
	"github.com/expr-lang/expr/ast"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// invariantAssert rewrites an invariant into a test-file condition: a
// run's assert sees the final state, the derived values on the last event
// (`derived.NAME`) and the params (`param.NAME`), so only the facts are
// written out, as the last event of the counterexample has them. Derived
// values and params are the tested policy's own: the run fails while the
// policy breaks the invariant on that sequence and passes once it keeps
// it. It returns "" when the invariant cannot be rewritten.
func (m *model) invariantAssert(src string, last map[string]any) string {
	node, err := parse(src)
	if err != nil {
		return ""
	}
	derived := map[string]bool{}
	for _, d := range m.p.Derived {
		derived[d.Name] = true
	}
	ok := true
	ast.Walk(&node, visitor2(func(at *ast.Node) {
		switch x := (*at).(type) {
		case *ast.IdentifierNode:
			if derived[x.Value] {
				ast.Patch(at, &ast.MemberNode{Node: &ast.IdentifierNode{Value: "derived"}, Property: &ast.StringNode{Value: x.Value}})
			}
		case *ast.MemberNode:
			id, isID := x.Node.(*ast.IdentifierNode)
			prop, isStr := x.Property.(*ast.StringNode)
			if !isID || !isStr || id.Value != "event" {
				return
			}
			v, has := last[prop.Value]
			if !has {
				v = factDefault(prop.Value)
			}
			lit, good := literal(v)
			ok = ok && good
			ast.Patch(at, lit)
		}
	}))
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
