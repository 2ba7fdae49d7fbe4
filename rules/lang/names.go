package lang

import (
	"fmt"
	"github.com/agext/levenshtein"

	"github.com/expr-lang/expr/ast"
)

type compiler struct {
	src string
	env *Env
}

func (c *compiler) errAt(n ast.Node, format string, args ...any) *Error {
	loc := n.Location()
	off := byteOffset(c.src, loc.From)
	length := 1
	if loc.To > loc.From {
		length = byteOffset(c.src, loc.To) - off
	}
	return &Error{Offset: off, Length: length, Msg: fmt.Sprintf(format, args...)}
}

// names reports unknown identifiers, facts, slots, params and messages with
// messages in the policy's terms, before expr's checker would name its own
// generated types.
func (c *compiler) names(n ast.Node) error {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return c.ident(n)
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && isNamespace(id.Value) {
			if err := c.namespaceAllowed(id); err != nil {
				return err
			}
			prop, ok := n.Property.(*ast.StringNode)
			if !ok {
				return c.errAt(n, "%s members are read by name, as %s.NAME", id.Value, id.Value)
			}
			return c.member(n, id.Value, prop.Value)
		}
		if err := c.names(n.Node); err != nil {
			return err
		}
		return c.names(n.Property)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			if id.Value != "field" && id.Value != "nfields" {
				return c.errAt(n, "unknown function %q", id.Value)
			}
		}
		for _, a := range n.Arguments {
			if err := c.names(a); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	for _, child := range children(n) {
		if err = c.names(child); err != nil {
			return err
		}
	}
	return nil
}

func isNamespace(s string) bool {
	return s == nsEvent || s == nsState || s == nsParam || s == nsMessage || s == nsScope
}

func (c *compiler) namespaceAllowed(id *ast.IdentifierNode) error {
	if (id.Value == nsEvent && c.env.NoEvent) || (id.Value == nsState && c.env.NoState) {
		return c.errAt(id, "%s is not available here", id.Value)
	}
	if id.Value == nsScope && c.env.Scope == nil {
		if c.env.ScopeNote != "" {
			return c.errAt(id, "scope is not available here: %s", c.env.ScopeNote)
		}
		return c.errAt(id, "scope is not available here: only the conditions of a scoped property (its when, its then and until markers) read it")
	}
	return nil
}

func (c *compiler) ident(n *ast.IdentifierNode) error {
	if isNamespace(n.Value) {
		if err := c.namespaceAllowed(n); err != nil {
			return err
		}
		return c.errAt(n, "%s is a namespace; name a member, as %s.NAME", n.Value, n.Value)
	}
	if _, ok := c.env.top(n.Value); ok {
		return nil
	}
	var names []string
	for _, b := range c.env.Top {
		names = append(names, b.Name)
	}
	return c.errAt(n, "unknown name %q%s", n.Value, suggest(n.Value, append(names, nsEvent, nsState, nsParam, nsMessage)))
}

func (c *compiler) member(n ast.Node, ns, name string) error {
	switch ns {
	case nsEvent:
		if _, ok := c.env.field(ns, name); !ok {
			return c.errAt(n, "event %s has no fact %q%s", c.env.EventName, name, suggest(name, c.env.names(ns)))
		}
	case nsState:
		if _, ok := c.env.field(ns, name); !ok {
			return c.errAt(n, "unknown slot %q%s", name, suggest(name, c.env.names(ns)))
		}
	case nsScope:
		if _, ok := c.env.field(ns, name); !ok {
			return c.errAt(n, "the scope keeps no %q: it keeps opened_ms (the clock when it opened), openings (how often it opened in a row) and the arguments of the effect that opened it, when an effect does%s", name, suggest(name, c.env.names(ns)))
		}
	case nsParam:
		if _, ok := c.env.konst(ns, name); !ok {
			return c.errAt(n, "unknown param %q%s", name, suggest(name, c.env.names(ns)))
		}
	case nsMessage:
		if _, ok := c.env.konst(ns, name); !ok {
			return c.errAt(n, "unknown message %q%s", name, suggest(name, c.env.names(ns)))
		}
	}
	return nil
}

func children(n ast.Node) []ast.Node {
	switch n := n.(type) {
	case *ast.UnaryNode:
		return []ast.Node{n.Node}
	case *ast.BinaryNode:
		return []ast.Node{n.Left, n.Right}
	case *ast.ChainNode:
		return []ast.Node{n.Node}
	case *ast.MemberNode:
		return []ast.Node{n.Node, n.Property}
	case *ast.SliceNode:
		out := []ast.Node{n.Node}
		if n.From != nil {
			out = append(out, n.From)
		}
		if n.To != nil {
			out = append(out, n.To)
		}
		return out
	case *ast.CallNode:
		return append([]ast.Node{n.Callee}, n.Arguments...)
	case *ast.BuiltinNode:
		return n.Arguments
	case *ast.ConditionalNode:
		return []ast.Node{n.Cond, n.Exp1, n.Exp2}
	case *ast.ArrayNode:
		return n.Nodes
	case *ast.SequenceNode:
		return n.Nodes
	case *ast.VariableDeclaratorNode:
		return []ast.Node{n.Value, n.Expr}
	case *ast.PredicateNode:
		return []ast.Node{n.Node}
	case *ast.MapNode:
		return n.Pairs
	case *ast.PairNode:
		return []ast.Node{n.Key, n.Value}
	}
	return nil
}

// Suggest returns `; did you mean "x"?` for the closest of names, and ""
// when none is close. Close is within two edits, or within a third of the
// candidate's length for longer names ("wipe_mem" → "wipe_memory"), by
// agext/levenshtein, the edit distance HCL itself suggests names with.
// Every "unknown name" message of the language, the engine and the command
// line uses it.
func Suggest(name string, names []string) string { return suggest(name, names) }

func suggest(name string, names []string) string {
	best := Closest(name, names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// Closest is the name of names that a did-you-mean offers for name, or ""
// when none is close enough.
func Closest(name string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := levenshtein.Distance(name, n, nil)
		if d > max(2, len(n)/3) || d >= len(n) {
			continue
		}
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// cnode is a compiled node: its type, the enum its value comes from (for
