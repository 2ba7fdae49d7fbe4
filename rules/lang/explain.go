package lang

import (
	"sync"

	"github.com/expr-lang/expr/ast"
)

// Comparison is a comparison's two sides, compiled on their own so that an
// explanation can show the values they had: `remaining (18000) <=
// warning_at (28672)`.
type Comparison struct {
	Op          string
	Left, Right *Program
}

var comparisonOps = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "==": true, "!=": true}

// Comparison returns the program's sides when it is a comparison, else nil.
// The sides are compiled on first use only: explanations are rare, loading
// is not.
func (p *Program) Comparison() *Comparison {
	if p.comparison == nil {
		return nil
	}
	return p.comparison()
}

// lazyComparison prepares the sides of n, when n is a comparison.
func (c *compiler) lazyComparison(n ast.Node) func() *Comparison {
	b, ok := n.(*ast.BinaryNode)
	if !ok || !comparisonOps[b.Operator] {
		return nil
	}
	return sync.OnceValue(func() *Comparison {
		side := func(x ast.Node) *Program {
			cn, err := c.node(x)
			if err != nil {
				return nil
			}
			return cn.program(x.String())
		}
		l, r := side(b.Left), side(b.Right)
		if l == nil || r == nil {
			return nil
		}
		return &Comparison{Op: b.Operator, Left: l, Right: r}
	})
}

// Named returns, when the program is just the name of a derived value, the
// derived value's own program, so an explanation can say why it was false.
func (p *Program) Named() *Program { return p.named }

func (c *compiler) named(n ast.Node) *Program {
	id, ok := n.(*ast.IdentifierNode)
	if !ok {
		return nil
	}
	for _, b := range c.env.Top {
		if b.Name == id.Value {
			return b.Prog
		}
	}
	return nil
}
