package rules

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Param is a typed, documented, overridable policy parameter.
type Param struct {
	Name        string
	Description string
	Type        cty.Type
	Default     cty.Value
	// Value is the value in force and Origin says where it came from:
	// "default", a file name, "--set", a setting.
	Value        cty.Value
	Origin       string
	Validations  []*Validation
	DeclRange    hcl.Range
	TypeRange    hcl.Range
	DefaultRange hcl.Range

	overrideRange *hcl.Range
	overrideText  string
}

// Validation is a condition a param value must meet.
type Validation struct {
	Condition      string
	ConditionRange hcl.Range
	ErrorMessage   string
	DeclRange      hcl.Range
}

var paramSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type", Required: true},
		{Name: "default", Required: true},
		{Name: "description"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message", Required: true},
	},
}

func decodeParam(b *hcl.Block) (*Param, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, paramSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	p := &Param{Name: b.Labels[0], DeclRange: b.DefRange, Origin: "default"}
	if a, ok := content.Attributes["description"]; ok {
		s, d := literalString(a.Expr, "description")
		diags = append(diags, d...)
		p.Description = s
	}
	ta := content.Attributes["type"]
	p.TypeRange = ta.Expr.Range()
	ty, d := paramType(ta.Expr)
	diags = append(diags, d...)
	p.Type = ty
	da := content.Attributes["default"]
	p.DefaultRange = da.Expr.Range()
	v, d := literalValue(da.Expr, "a param default")
	diags = append(diags, d...)
	if !d.HasErrors() && ty != cty.NilType {
		cv, err := convert.Convert(v, ty)
		if err != nil || cv.IsNull() {
			diags = append(diags, errorAt(ptr(da.Expr.Range()), "Wrong default type", "the default of param %q must be %s", p.Name, typeexpr.TypeString(ty)))
		} else if bad, ok := nonFinite(cv); ok {
			diags = append(diags, errorAt(ptr(da.Expr.Range()), "Number not finite", "the default of param %q must be a finite number, not %s", p.Name, bad))
		} else {
			p.Default, p.Value = cv, cv
		}
	}
	for _, vb := range content.Blocks {
		vc, d := bodyContent(vb.Body, validationSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		val := &Validation{DeclRange: vb.DefRange}
		cond := vc.Attributes["condition"]
		val.Condition, d = literalString(cond.Expr, "a validation condition")
		diags = append(diags, d...)
		val.ConditionRange = cond.Expr.Range()
		val.ErrorMessage, d = literalString(vc.Attributes["error_message"].Expr, "error_message")
		diags = append(diags, d...)
		p.Validations = append(p.Validations, val)
	}
	return p, diags
}

var paramTypes = []cty.Type{cty.Number, cty.String, cty.Bool, cty.List(cty.Number), cty.List(cty.String)}

// paramType reads `number`, `list(number)`, or the same in a string.
func paramType(expr hcl.Expression) (cty.Type, hcl.Diagnostics) {
	bad := hcl.Diagnostics{errorAt(ptr(expr.Range()), "Unsupported param type", "a param type is number, string, bool, list(number) or list(string)")}
	ty, diags := typeexpr.TypeConstraint(expr)
	if diags.HasErrors() {
		s, ok := keyword(expr)
		if !ok {
			return cty.NilType, bad
		}
		e, d := hclsyntax.ParseExpression([]byte(s), expr.Range().Filename, expr.Range().Start)
		if d.HasErrors() {
			return cty.NilType, bad
		}
		ty, diags = typeexpr.TypeConstraint(e)
		if diags.HasErrors() {
			return cty.NilType, bad
		}
	}
	for _, t := range paramTypes {
		if ty.Equals(t) {
			return ty, nil
		}
	}
	return cty.NilType, bad
}
