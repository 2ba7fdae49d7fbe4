package rules

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// hostMessages are read by the host itself: the texts of a reset boundary
// and the notice it shows once a reset is confirmed committed.
var hostMessages = map[string]bool{"boot": true, "continuation": true, "reset_notice": true}

// DeadParts warns about declarations nothing reads: a param no expression
// or validation reads, a slot no rule tests or reads (written only, it
// changes nothing), a derived value no expression reads, a message no
// effect or expression names (boot, continuation and reset_notice are read by the host).
// They are warnings: the policy runs the same without them. In a file that
// uses a built-in, the built-in's own declarations are not warned about: the
// author cannot drop them, and a tuned built-in that no longer sends one of
// its messages is not a mistake of the file.
func DeadParts(p *Policy) hcl.Diagnostics {
	refs := references(p)
	var diags hcl.Diagnostics
	warn := func(rng hcl.Range, kind, name, detail string) {
		if p.Composition != nil && p.Composition.DeclOrigin(rng) == Inherited {
			return
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Unused " + kind,
			Detail: kind + " " + quote(name) + " " + detail, Subject: ptr(rng)})
	}
	for _, x := range p.Params {
		if !refs["param."+x.Name] {
			warn(x.DeclRange, "param", x.Name, "is read by no expression; drop it, or read it as param."+x.Name)
		}
	}
	for _, s := range p.Slots {
		if !refs["state."+s.Name] {
			warn(s.DeclRange, "slot", s.Name, "is tested and read by no rule; drop it, or read it in from or as state."+s.Name)
		}
	}
	for _, d := range p.Derived {
		if !refs[d.Name] {
			warn(d.DeclRange, "derived value", d.Name, "is read by no expression; drop it, or read it by name")
		}
	}
	for _, m := range p.Messages {
		if !refs["message."+m.Name] && !hostMessages[m.Name] {
			warn(m.DeclRange, "message", m.Name, "is named by no effect and read by no expression; drop it, or send it")
		}
	}
	return diags
}

func quote(s string) string { return `"` + s + `"` }

// references lists what the policy's expressions and literal references
// read: "param.X", "state.X", "message.X" and bare derived names.
func references(p *Policy) map[string]bool {
	refs := map[string]bool{}
	read := func(src string) {
		tree, err := parser.Parse(src)
		if err != nil {
			return
		}
		ast.Walk(&tree.Node, refVisitor(refs))
	}
	readExpr := func(e hcl.Expression) {
		if e == nil {
			return
		}
		if v, d := e.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			read(v.AsString())
		}
	}
	for _, x := range p.Params {
		for _, v := range x.Validations {
			read(v.Condition)
		}
	}
	for _, d := range p.Derived {
		readExpr(d.Expr)
	}
	for _, r := range p.Rules {
		readExpr(r.When)
		for _, e := range r.From {
			refs["state."+e.Key] = true
		}
		for _, e := range r.Set {
			readExpr(e.Value)
		}
		for _, e := range r.Effects {
			for _, a := range e.Args {
				v, d := a.Expr.Value(nil)
				if d.HasErrors() || v.Type() != cty.String || v.IsNull() {
					continue
				}
				// A literal message argument names a message; any other
				// string argument is an expression.
				refs["message."+v.AsString()] = true
				read(v.AsString())
			}
		}
	}
	return refs
}

type refVisitor map[string]bool

func (v refVisitor) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IdentifierNode:
		v[n.Value] = true
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok {
			if prop, ok := n.Property.(*ast.StringNode); ok {
				v[id.Value+"."+prop.Value] = true
			}
		}
	}
}

// ParamReads lists the params a rule reads, in its own expressions or
// through the derived values it reads (and those they read), in the
// policy's order.
func ParamReads(p *Policy, r *Rule) []string {
	refs, read := ruleRefs(r)
	// Derived values read derived values declared before them: one pass
	// from the last to the first reaches every one read transitively.
	for i := len(p.Derived) - 1; i >= 0; i-- {
		if d := p.Derived[i]; refs[d.Name] {
			read(d.Expr)
		}
	}
	var out []string
	for _, x := range p.Params {
		if refs["param."+x.Name] {
			out = append(out, x.Name)
		}
	}
	return out
}

// ruleRefs collects the names a rule's guard, assignments and effect
// arguments refer to; read adds those of another expression.
func ruleRefs(r *Rule) (refs map[string]bool, read func(hcl.Expression)) {
	refs = map[string]bool{}
	read = func(e hcl.Expression) {
		if e == nil {
			return
		}
		if v, d := e.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			if tree, err := parser.Parse(v.AsString()); err == nil {
				ast.Walk(&tree.Node, refVisitor(refs))
			}
		}
	}
	read(r.When)
	for _, e := range r.Set {
		read(e.Value)
	}
	for _, e := range r.Effects {
		for _, a := range e.Args {
			read(a.Expr)
		}
	}
	return refs, read
}

// DerivedReads lists the derived values a rule reads directly (in its
// guard, assignments and effect arguments), in the policy's order.
func DerivedReads(p *Policy, r *Rule) []string {
	refs, _ := ruleRefs(r)
	var out []string
	for _, d := range p.Derived {
		if refs[d.Name] {
			out = append(out, d.Name)
		}
	}
	return out
}
