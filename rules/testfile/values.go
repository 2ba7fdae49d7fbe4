package testfile

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// ParamText renders an override value as the text the policy loader takes:
// a string as it is, a number in decimal (exact, as cty holds it), a bool as
// true or false, and a list or tuple in HCL syntax such as [5000, 10000].
func ParamText(v cty.Value) (string, error) {
	if v.IsNull() {
		return "", fmt.Errorf("null is not a value")
	}
	if !v.IsWhollyKnown() {
		return "", fmt.Errorf("the value is not known")
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString(), nil
	case t == cty.Number:
		return numberText(v.AsBigFloat()), nil
	case t == cty.Bool:
		if v.True() {
			return "true", nil
		}
		return "false", nil
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		var elems []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() {
				return "", fmt.Errorf("a list element is null")
			}
			switch e.Type() {
			case cty.String:
				elems = append(elems, hclQuote(e.AsString()))
			case cty.Number:
				elems = append(elems, numberText(e.AsBigFloat()))
			case cty.Bool:
				elems = append(elems, fmt.Sprint(e.True()))
			default:
				return "", fmt.Errorf("list elements must be strings, numbers or bools, not %s", e.Type().FriendlyName())
			}
		}
		return "[" + strings.Join(elems, ", ") + "]", nil
	}
	return "", fmt.Errorf("a param is a string, number, bool or list, not %s", t.FriendlyName())
}

// hclQuote writes s as a quoted HCL string.
func hclQuote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}

func numberText(f *big.Float) string {
	if f.IsInt() {
		i, _ := f.Int(nil)
		return i.String()
	}
	return f.Text('f', -1)
}

// scalarValue converts a string, number or bool to string, float64 or bool:
// the types of state slots and effect arguments.
func scalarValue(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, fmt.Errorf("null is not a value")
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("the value is not known")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f, nil
	case cty.Bool:
		return v.True(), nil
	}
	return nil, fmt.Errorf("expected a string, number or bool, not %s", v.Type().FriendlyName())
}

// genericValue converts any known cty value to plain Go values as JSON
// decoding gives them: string, float64, bool, []any, map[string]any, nil.
func genericValue(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("the value is not known")
	}
	t := v.Type()
	switch {
	case t == cty.String, t == cty.Number, t == cty.Bool:
		return scalarValue(v)
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := genericValue(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case t.IsMapType() || t.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			g, err := genericValue(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = g
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %s", t.FriendlyName())
}

// keyValue is one key of an object constructor, with its ranges.
type keyValue struct {
	name     string
	keyRange hcl.Range
	value    hcl.Expression
}

// objectPairs reads an object constructor `{ a = 1, b = "x" }` key by key,
// so each value keeps its own range. Duplicate keys are errors.
func objectPairs(expr hcl.Expression, what, shape string) ([]keyValue, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{errorAt(expr.Range(), "Invalid "+what,
			fmt.Sprintf("%s must be an object: %s.", what, shape))}
	}
	var out []keyValue
	seen := map[string]hcl.Range{}
	for _, kv := range pairs {
		kval, d := kv.Key.Value(nil)
		if d.HasErrors() || kval.IsNull() || kval.Type() != cty.String {
			diags = append(diags, errorAt(kv.Key.Range(), "Invalid key",
				fmt.Sprintf("The keys of %s are plain names.", what)))
			continue
		}
		name := kval.AsString()
		if prev, dup := seen[name]; dup {
			diags = append(diags, errorAt(kv.Key.Range(), "Duplicate key",
				fmt.Sprintf("%q is already given at %s.", name, shortPos(prev))))
			continue
		}
		seen[name] = kv.Key.Range()
		out = append(out, keyValue{name: name, keyRange: kv.Key.Range(), value: kv.Value})
	}
	return out, diags
}

// Slot is one state slot value: a string, a float64 or a bool.
type Slot struct {
	Name  string
	Value any
	Range hcl.Range
}

// decodeSlots reads `state = { slot = value, … }`.
func decodeSlots(attr *hcl.Attribute) ([]Slot, hcl.Diagnostics) {
	pairs, diags := objectPairs(attr.Expr, "state", `slot values such as { request = "none" }`)
	var out []Slot
	for _, kv := range pairs {
		v, d := kv.value.Value(nil)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		g, err := scalarValue(v)
		if err != nil {
			diags = append(diags, errorAt(kv.value.Range(), "Invalid slot value",
				fmt.Sprintf("Slot %q: %s.", kv.name, err)))
			continue
		}
		out = append(out, Slot{Name: kv.name, Value: g, Range: kv.value.Range()})
	}
	return out, diags
}

// SlotMap returns slots as a map, as engine sessions take them.
func SlotMap(slots []Slot) map[string]any {
	out := make(map[string]any, len(slots))
	for _, s := range slots {
		out[s.Name] = s.Value
	}
	return out
}

func stringAttr(attr *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := attr.Expr.Value(nil)
	if diags.HasErrors() {
		return "", diags
	}
	if v.IsNull() || v.Type() != cty.String {
		return "", hcl.Diagnostics{errorAt(attr.Expr.Range(), "Invalid "+attr.Name,
			fmt.Sprintf("%s must be a string.", attr.Name))}
	}
	return v.AsString(), nil
}

func stringListAttr(attr *hcl.Attribute) ([]string, hcl.Diagnostics) {
	v, diags := attr.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	t := v.Type()
	bad := hcl.Diagnostics{errorAt(attr.Expr.Range(), "Invalid "+attr.Name,
		fmt.Sprintf("%s must be a list of strings, such as [\"a\", \"b\"]; [] for none.", attr.Name))}
	if v.IsNull() || !(t.IsListType() || t.IsTupleType()) {
		return nil, bad
	}
	out := []string{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			return nil, bad
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func errorAt(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

func shortPos(r hcl.Range) string {
	return fmt.Sprintf("line %d:%d", r.Start.Line, r.Start.Column)
}
