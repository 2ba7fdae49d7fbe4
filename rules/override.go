package rules

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// applyOverrides sets param values in order; later overrides win.
func (p *Policy) applyOverrides(ovs []Override) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, ov := range ovs {
		diag := func(summary, format string, args ...any) {
			rng := ov.Range
			if summary == "Unknown param" && ov.NameRange != nil {
				rng = ov.NameRange
			}
			d := errorAt(rng, summary, format, args...)
			if ov.Range == nil {
				d.Detail = fmt.Sprintf("%s %s=%s: %s", ov.Origin, ov.Name, ov.Raw, d.Detail)
			}
			diags = append(diags, d)
		}
		param, ok := p.Param(ov.Name)
		if !ok && ov.Scoped {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Param not in this policy", Subject: ov.Range,
				Detail: fmt.Sprintf("%s sets param %q, which policy %q does not declare; it is ignored for this policy", ov.Origin, ov.Name, p.Name)})
			continue
		}
		if !ok {
			var names []string
			for _, x := range p.Params {
				names = append(names, x.Name)
			}
			diag("Unknown param", "policy %q has no param %q%s", p.Name, ov.Name, suggestName(ov.Name, names))
			continue
		}
		if param.Type == cty.NilType || ov.Yield && p.setByFile(param) {
			continue
		}
		v := ov.Value
		if v == cty.NilVal {
			var err error
			if v, err = parseRaw(ov.Raw, param.Type); err != nil {
				diag("Wrong param type", "param %q is %s: %v", ov.Name, typeexpr.TypeString(param.Type), err)
				continue
			}
		}
		cv, err := convert.Convert(v, param.Type)
		if err != nil || cv.IsNull() {
			diag("Wrong param type", "param %q is %s, not %s", ov.Name, typeexpr.TypeString(param.Type), friendlyType(v.Type()))
			continue
		}
		if bad, ok := nonFinite(cv); ok {
			diag("Number not finite", "param %q must be a finite number, not %s", ov.Name, bad)
			continue
		}
		param.Value, param.Origin = cv, ov.Origin
		param.overrideRange = ov.Range
		param.overrideText = ov.Origin + " " + ov.Name + "=" + ov.Raw
	}
	return diags
}

// setByFile reports whether the loaded file itself gives param its value:
// a `use` block sets it, or the file (not the built-in it uses) declares it.
func (p *Policy) setByFile(param *Param) bool {
	if param.Origin != "default" {
		return true
	}
	return p.Composition == nil || param.DeclRange.Filename != p.Composition.BaseFile
}

func friendlyType(t cty.Type) string {
	switch {
	case t == cty.Number:
		return "a number"
	case t == cty.String:
		return "a string"
	case t == cty.Bool:
		return "a bool"
	case t.IsTupleType() || t.IsListType():
		return "a list"
	}
	return t.FriendlyName()
}

// parseRaw converts text from a flag or a setting to a value of type t.
func parseRaw(raw string, t cty.Type) (cty.Value, error) {
	switch {
	case t == cty.String:
		return cty.StringVal(raw), nil
	case t == cty.Number:
		f, _, err := big.ParseFloat(strings.TrimSpace(raw), 10, 512, big.ToNearestEven)
		if err != nil {
			if isNaNText(raw) {
				return cty.NilVal, fmt.Errorf("%q is not a number; a param must be a finite number", raw)
			}
			return cty.NilVal, fmt.Errorf("%q is not a number", raw)
		}
		return cty.NumberVal(f), nil
	case t == cty.Bool:
		switch strings.TrimSpace(raw) {
		case "true":
			return cty.True, nil
		case "false":
			return cty.False, nil
		}
		return cty.NilVal, fmt.Errorf("%q is not true or false", raw)
	}
	// The same bounds as a file's, before HCL parses and evaluates it: a
	// long operator chain would overflow the stack.
	if d := CheckHCL([]byte(raw), "override"); d.HasErrors() {
		return cty.NilVal, fmt.Errorf("%q: %s", truncate(raw, 40), d[0].Detail)
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "override", hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("%q is not a list such as [5000, 10000]", raw)
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("%q is not a literal list", raw)
	}
	return v, nil
}

func suggestName(name string, names []string) string { return lang.Suggest(name, names) }

// nonFinite finds a number in v, or in the list v, that is infinite or too
// large for a float64 (which the engine computes with): such a value would
// make every comparison with it meaningless. It returns the number's text.
func nonFinite(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() {
		return "", false
	}
	switch {
	case v.Type() == cty.Number:
		bf := v.AsBigFloat()
		if f, _ := bf.Float64(); bf.IsInf() || math.IsInf(f, 0) {
			return bf.Text('g', 6), true
		}
	case v.Type().IsListType() || v.Type().IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if s, bad := nonFinite(e); bad {
				return s, true
			}
		}
	}
	return "", false
}

// isNaNText reports text naming NaN or an infinity.
func isNaNText(s string) bool {
	s = strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "+-"))
	return s == "nan" || s == "inf" || s == "infinity"
}

// truncate shortens s to at most n runes for a message, marking the cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
