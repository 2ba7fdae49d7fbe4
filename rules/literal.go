package rules

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// literalValue evaluates an expression that must not reference anything:
// structure in a policy is literal.
func literalValue(expr hcl.Expression, what string) (cty.Value, hcl.Diagnostics) {
	if v, ok := plainLiteral(expr); ok {
		return v, nil
	}
	if len(expr.Variables()) > 0 {
		return cty.NilVal, hcl.Diagnostics{errorAt(ptr(expr.Range()), "Not a literal", "%s must be a literal value; references are not available in policy structure", what)}
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal, hcl.Diagnostics{errorAt(ptr(expr.Range()), "Not a literal", "%s must be a literal value: %s", what, diags[0].Detail)}
	}
	return v, nil
}

// plainLiteral is the value of a literal or of a quoted string without
// interpolation, read straight from the syntax tree: most of a policy's
// structure is such, and evaluating it as an HCL template (walking it for
// variables, then building the string) is most of what decoding costs.
func plainLiteral(expr hcl.Expression) (cty.Value, bool) {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return e.Val, e.Val.IsWhollyKnown()
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if l, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok && l.Val.Type() == cty.String && !l.Val.IsNull() && l.Val.IsKnown() {
				return l.Val, true
			}
		}
	}
	return cty.NilVal, false
}

// literalString reads a string literal.
func literalString(expr hcl.Expression, what string) (string, hcl.Diagnostics) {
	v, diags := literalValue(expr, what)
	if diags.HasErrors() {
		return "", diags
	}
	if v.IsNull() || v.Type() != cty.String {
		return "", hcl.Diagnostics{errorAt(ptr(expr.Range()), "Expected a string", "%s must be a string", what)}
	}
	return v.AsString(), nil
}

// literalBool reads a bool literal.
func literalBool(expr hcl.Expression, what string) (bool, hcl.Diagnostics) {
	v, diags := literalValue(expr, what)
	if diags.HasErrors() {
		return false, diags
	}
	if v.IsNull() || v.Type() != cty.Bool {
		return false, hcl.Diagnostics{errorAt(ptr(expr.Range()), "Expected a bool", "%s must be true or false", what)}
	}
	return v.True(), nil
}

// stringOrList reads "a" or ["a", "b"], with each element's range.
func stringOrList(expr hcl.Expression, what string) ([]string, []hcl.Range, hcl.Diagnostics) {
	// isListExpr is asked first: hcl.ExprList's answer for a single string
	// is an error diagnostic, made and dropped for most `on` and `from`
	// values of a policy.
	if isListExpr(expr) {
		if exprs, d := hcl.ExprList(expr); !d.HasErrors() {
			var out []string
			var rngs []hcl.Range
			var diags hcl.Diagnostics
			for _, e := range exprs {
				s, d := literalString(e, what)
				diags = append(diags, d...)
				out, rngs = append(out, s), append(rngs, e.Range())
			}
			return out, rngs, diags
		}
	}
	s, diags := literalString(expr, what)
	return []string{s}, []hcl.Range{expr.Range()}, diags
}

func isListExpr(expr hcl.Expression) bool {
	if _, ok := expr.(*hclsyntax.TupleConsExpr); ok {
		return true
	}
	if v, ok := plainLiteral(expr); ok {
		return v.Type().IsTupleType() || v.Type().IsListType()
	}
	v, d := expr.Value(nil)
	return !d.HasErrors() && !v.IsNull() && (v.Type().IsTupleType() || v.Type().IsListType())
}

// keyword reads a bare keyword (`type = number`) or the same as a string
// (`type = "number"`, the JSON form).
func keyword(expr hcl.Expression) (string, bool) {
	if k := hcl.ExprAsKeyword(expr); k != "" {
		return k, true
	}
	v, d := expr.Value(nil)
	if d.HasErrors() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// entry is one `key = value` of an object attribute such as `to` or `set`.
type entry struct {
	Key       string
	KeyRange  hcl.Range
	Value     hcl.Expression
	ItemRange hcl.Range
}

func objectEntries(expr hcl.Expression, what string) ([]entry, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{errorAt(ptr(expr.Range()), "Expected an object", "%s must be an object, as { slot = value }", what)}
	}
	var out []entry
	for _, p := range pairs {
		key := hcl.ExprAsKeyword(p.Key)
		if key == "" {
			k, d := literalString(p.Key, what+" key")
			if d.HasErrors() {
				diags = append(diags, d...)
				continue
			}
			key = k
		}
		out = append(out, entry{Key: key, KeyRange: p.Key.Range(), Value: p.Value, ItemRange: hcl.RangeBetween(p.Key.Range(), p.Value.Range())})
	}
	return out, diags
}
