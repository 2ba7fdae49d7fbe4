package rules

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// Slot is one typed piece of session state.
type Slot struct {
	// Time marks a slot declared `type = time`: an int of host clock
	// milliseconds (a deadline).
	Time bool

	Name        string
	Description string
	Type        lang.Type // String for enums
	Enum        []string  // set for enum slots
	Initial     lang.Value
	// Durable slots survive reopening, forking and navigating the session:
	// the host persists their values in the session branch after a
	// decision changes one and restores them from the branch at
	// session_start and session_tree (rules/README.md, "Durable state").
	Durable   bool
	Index     int
	DeclRange hcl.Range
}

// IsEnum reports whether the slot is an enum (a phase).
func (s *Slot) IsEnum() bool { return len(s.Enum) > 0 }

var slotSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "values"},
		{Name: "initial"},
		{Name: "description"},
		{Name: "durable"},
	},
}

var slotTypes = map[string]lang.Type{
	"string": lang.String, "number": lang.Float, "int": lang.Int, "bool": lang.Bool, "time": lang.Int,
}

func decodeSlot(b *hcl.Block, index int) (*Slot, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, slotSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	s := &Slot{Name: b.Labels[0], DeclRange: b.DefRange, Index: index}
	if a, ok := content.Attributes["description"]; ok {
		var d hcl.Diagnostics
		s.Description, d = literalString(a.Expr, "description")
		diags = append(diags, d...)
	}
	ta, hasType := content.Attributes["type"]
	va, hasValues := content.Attributes["values"]
	switch {
	case hasValues:
		if hasType {
			if k, _ := keyword(ta.Expr); k != "enum" {
				diags = append(diags, errorAt(ptr(ta.Expr.Range()), "Conflicting slot type", "a slot with values is an enum; drop type or write type = enum"))
			}
		}
		vals, rngs, d := stringOrList(va.Expr, "an enum value")
		diags = append(diags, d...)
		for i, v := range vals {
			if slices.Contains(vals[:i], v) {
				diags = append(diags, errorAt(ptr(rngs[i]), "Duplicate enum value", "slot %q lists %q twice", s.Name, v))
			}
		}
		if len(vals) > 64 {
			diags = append(diags, errorAt(ptr(va.Expr.Range()), "Enum too large", "slot %q lists %d values; an enum holds at most 64", s.Name, len(vals)))
			return s, diags
		}
		if len(vals) == 0 {
			diags = append(diags, errorAt(ptr(va.Expr.Range()), "Empty enum", "slot %q needs at least one value", s.Name))
			return s, diags
		}
		s.Type, s.Enum, s.Initial = lang.String, vals, lang.Value{Str: vals[0]}
	case hasType:
		k, _ := keyword(ta.Expr)
		t, ok := slotTypes[k]
		if !ok {
			diags = append(diags, errorAt(ptr(ta.Expr.Range()), "Unknown slot type", "a slot type is string, number, int, bool or time, or an enum given by values = [...]"))
			return s, diags
		}
		s.Type = t
		s.Time = k == "time"
	default:
		diags = append(diags, errorAt(ptr(b.DefRange), "Missing slot type", "slot %q needs type = string|number|int|bool|time, or values = [...] for an enum", s.Name))
		return s, diags
	}
	if a, ok := content.Attributes["durable"]; ok {
		v, d := literalValue(a.Expr, "durable")
		diags = append(diags, d...)
		if !d.HasErrors() {
			if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
				diags = append(diags, errorAt(ptr(a.Expr.Range()), "Wrong durable value", "durable is true or false"))
			} else {
				s.Durable = v.True()
			}
		}
	}
	if a, ok := content.Attributes["initial"]; ok {
		v, d := literalValue(a.Expr, "an initial value")
		diags = append(diags, d...)
		if !d.HasErrors() {
			iv, d := slotValue(s, v, a.Expr.Range())
			diags = append(diags, d...)
			s.Initial = iv
		}
	}
	return s, diags
}

// slotValue converts a literal to a slot's value, checking enum and type.
func slotValue(s *Slot, v cty.Value, rng hcl.Range) (lang.Value, hcl.Diagnostics) {
	bad := func(format string, args ...any) (lang.Value, hcl.Diagnostics) {
		return lang.Value{}, hcl.Diagnostics{errorAt(ptr(rng), "Wrong slot value", format, args...)}
	}
	if v.IsNull() || !v.IsKnown() {
		return bad("slot %q needs a %s value", s.Name, s.Type)
	}
	switch s.Type {
	case lang.String:
		if v.Type() != cty.String {
			return bad("slot %q holds strings", s.Name)
		}
		str := v.AsString()
		if s.IsEnum() {
			ev, ok := lang.EnumValue(s.Enum, str)
			if !ok {
				return bad("%q is not a value of slot %q (%s)", str, s.Name, strings.Join(quoteAll(s.Enum), ", "))
			}
			return ev, nil
		}
		return lang.Value{Str: str}, nil
	case lang.Bool:
		if v.Type() != cty.Bool {
			return bad("slot %q holds bools", s.Name)
		}
		return lang.Value{Bool: v.True()}, nil
	case lang.Int, lang.Float:
		if v.Type() != cty.Number {
			return bad("slot %q holds numbers", s.Name)
		}
		f, _ := v.AsBigFloat().Float64()
		if s.Type == lang.Int && !v.AsBigFloat().IsInt() {
			return bad("slot %q holds integers", s.Name)
		}
		return lang.Value{Num: f}, nil
	}
	return bad("slot %q has no literal form", s.Name)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}
