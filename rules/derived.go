package rules

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Derived is a named expression over common facts, state, params and
// earlier derived values (a threshold, the remaining budget).
type Derived struct {
	Name      string
	Expr      hcl.Expression
	DeclRange hcl.Range
	Prog      *lang.Program
}

var derivedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}, {Name: "description"}},
}

func decodeDerived(b *hcl.Block) (*Derived, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, derivedSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Derived{Name: b.Labels[0], Expr: content.Attributes["value"].Expr, DeclRange: b.DefRange}, diags
}

var reservedNames = map[string]bool{
	"event": true, "state": true, "param": true, "message": true, "value": true, "scope": true,
	"true": true, "false": true, "nil": true, "not": true, "and": true, "or": true, "in": true,
	"matches": true, "contains": true, "startsWith": true, "endsWith": true, "let": true, "if": true, "else": true,
	"len": true, "abs": true, "min": true, "max": true, "int": true, "float": true, "string": true,
	"lower": true, "upper": true, "trim": true, "field": true, "nfields": true,
}

func derivedNameClashes(p *Policy) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, d := range p.Derived {
		if reservedNames[d.Name] {
			diags = append(diags, errorAt(ptr(d.DeclRange), "Reserved name", "%q is a name of the expression language; choose another name for this derived value", d.Name))
		}
	}
	return diags
}
