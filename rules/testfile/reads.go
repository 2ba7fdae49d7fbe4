package testfile

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// MaxReads bounds how many values a failing assert shows, and MaxReadText
// how long each may print.
const (
	MaxReads    = 8
	MaxReadText = 200
)

// Reads lists, for a condition that did not hold, the values it read from
// env: each path into decisions, last and state (`last.rules`,
// `state.failures`, `decisions[1].effects`) and each builtin call over
// them (`len(last.effects)`), in the order the condition reads them, as
// "TEXT = VALUE" — what --explain tells of a guard, for an assert. Paths
// inside a predicate (`all(decisions, {.event == "x"})`) name the element
// and are shown through the call that holds them.
func (a *Assert) Reads(env map[string]any) []string {
	tree, err := parser.Parse(a.Condition)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(n ast.Node) {
		text := n.String()
		if seen[text] || len(out) >= MaxReads {
			return
		}
		seen[text] = true
		v, err := expr.Eval(text, env)
		val := ""
		if err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			val = "(error: " + msg + ")"
		} else if b, err := json.Marshal(v); err == nil {
			val = string(b)
		} else {
			val = fmt.Sprint(v)
		}
		if len(val) > MaxReadText {
			val = val[:MaxReadText] + "…"
		}
		out = append(out, text+" = "+val)
	}
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			add(n)
		case *ast.MemberNode, *ast.ChainNode:
			if rooted(n) {
				// A path that cannot be read (an index past the end) shows
				// the longest part of it that can.
				for p := n; p != nil; p = parent(p) {
					if _, err := expr.Eval(p.String(), env); err == nil || parent(p) == nil {
						add(p)
						break
					}
				}
				return
			}
			if m, ok := n.(*ast.MemberNode); ok {
				visit(m.Node)
				visit(m.Property)
			}
		case *ast.BuiltinNode:
			for _, a := range n.Arguments {
				if _, ok := a.(*ast.PredicateNode); !ok {
					visit(a)
				}
			}
			add(n)
		case *ast.CallNode:
			for _, a := range n.Arguments {
				visit(a)
			}
		case *ast.UnaryNode:
			visit(n.Node)
		case *ast.BinaryNode:
			visit(n.Left)
			visit(n.Right)
		case *ast.ConditionalNode:
			visit(n.Cond)
			visit(n.Exp1)
			visit(n.Exp2)
		case *ast.SliceNode:
			visit(n.Node)
		case *ast.ArrayNode:
			for _, e := range n.Nodes {
				visit(e)
			}
		}
	}
	visit(tree.Node)
	return out
}

// rooted reports whether a member chain starts at a name of the
// environment (and not at a predicate's element).
func rooted(n ast.Node) bool {
	for {
		switch x := n.(type) {
		case *ast.MemberNode:
			n = x.Node
		case *ast.ChainNode:
			n = x.Node
		case *ast.IdentifierNode:
			return true
		default:
			return false
		}
	}
}

// parent is the chain a member access reads from, or nil.
func parent(n ast.Node) ast.Node {
	switch x := n.(type) {
	case *ast.MemberNode:
		return x.Node
	case *ast.ChainNode:
		return x.Node
	}
	return nil
}
