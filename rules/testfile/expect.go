package testfile

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// EventExpect is the `expect {}` block of an event. Each field is nil when
// its key is absent, and absent keys are not checked.
type EventExpect struct {
	// Rules is the exact list of rules that must fire, in order.
	Rules *RulesExpect
	// Effects is the exact list of effects, in order.
	Effects *EffectsExpect
	// EffectsContain lists effects that must appear in this order, with
	// any others between them.
	EffectsContain *EffectsExpect
	// Error says the engine must reject the event with an error whose text
	// contains the substring.
	Error *ErrorExpect
	// State lists slots whose values after this event must equal.
	State *StateExpect

	DeclRange hcl.Range
}

// RulesExpect is an expected list of fired rules.
type RulesExpect struct {
	Names []string
	Range hcl.Range
}

// EffectsExpect is an expected list of effects.
type EffectsExpect struct {
	Effects []EffectSpec
	Range   hcl.Range
}

// EffectSpec is one expected effect: it matches an effect of the same name
// whose arguments equal every argument listed here; arguments it omits are
// not checked.
type EffectSpec struct {
	Name  string
	Args  []ArgSpec
	Range hcl.Range
}

// ArgSpec is one expected effect argument: a string, float64 or bool.
type ArgSpec struct {
	Name  string
	Value any
}

// ErrorExpect is an expected rejection of the event.
type ErrorExpect struct {
	// Substring must occur in the error text; "" accepts any error.
	Substring string
	Range     hcl.Range
}

// StateExpect lists slots and the values they must have.
type StateExpect struct {
	Slots []Slot
	Range hcl.Range
}

var eventExpectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "rules"},
		{Name: "effects"},
		{Name: "effects_contain"},
		{Name: "error"},
		{Name: "state"},
	},
}

func decodeEventExpect(b *hcl.Block) (*EventExpect, hcl.Diagnostics) {
	ex := &EventExpect{DeclRange: b.DefRange}
	content, diags := b.Body.Content(eventExpectSchema)
	if attr, ok := content.Attributes["rules"]; ok {
		names, d := stringListAttr(attr)
		diags = append(diags, d...)
		if !d.HasErrors() {
			ex.Rules = &RulesExpect{Names: names, Range: attr.Expr.Range()}
		}
	}
	for _, key := range []string{"effects", "effects_contain"} {
		attr, ok := content.Attributes[key]
		if !ok {
			continue
		}
		specs, d := decodeEffectList(attr)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		ee := &EffectsExpect{Effects: specs, Range: attr.Expr.Range()}
		if key == "effects" {
			ex.Effects = ee
		} else {
			ex.EffectsContain = ee
		}
	}
	if attr, ok := content.Attributes["error"]; ok {
		s, d := stringAttr(attr)
		diags = append(diags, d...)
		// Keep the expectation even when malformed: the event's facts are
		// then decoded leniently and only this one diagnostic is reported.
		ex.Error = &ErrorExpect{Substring: s, Range: attr.Expr.Range()}
	}
	if attr, ok := content.Attributes["state"]; ok {
		slots, d := decodeSlots(attr)
		diags = append(diags, d...)
		ex.State = &StateExpect{Slots: slots, Range: attr.Expr.Range()}
	}
	return ex, diags
}

func decodeEffectList(attr *hcl.Attribute) ([]EffectSpec, hcl.Diagnostics) {
	elems, diags := hcl.ExprList(attr.Expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{errorAt(attr.Expr.Range(), "Invalid "+attr.Name,
			fmt.Sprintf(`%s must be a list of effects such as [{ effect = "reply" }]; [] for none.`, attr.Name))}
	}
	specs := []EffectSpec{}
	for _, el := range elems {
		spec, d := decodeEffectSpec(el)
		diags = append(diags, d...)
		if !d.HasErrors() {
			specs = append(specs, spec)
		}
	}
	return specs, diags
}

func decodeEffectSpec(expr hcl.Expression) (EffectSpec, hcl.Diagnostics) {
	spec := EffectSpec{Range: expr.Range()}
	pairs, diags := objectPairs(expr, "an expected effect", `{ effect = "NAME", ARG = VALUE, … }`)
	if diags.HasErrors() {
		return spec, diags
	}
	var nameRange hcl.Range
	for _, kv := range pairs {
		if kv.name != "effect" {
			continue
		}
		v, d := kv.value.Value(nil)
		if d.HasErrors() {
			return spec, append(diags, d...)
		}
		if v.IsNull() || v.Type() != cty.String {
			return spec, append(diags, errorAt(kv.value.Range(), "Invalid effect name", "effect must be a string."))
		}
		spec.Name, nameRange = v.AsString(), kv.value.Range()
	}
	if spec.Name == "" {
		return spec, append(diags, errorAt(expr.Range(), "Missing effect name",
			`An expected effect names its effect: { effect = "reply", … }.`))
	}
	effect, known := contract.LookupEffect(spec.Name)
	if !known {
		return spec, append(diags, errorAt(nameRange, "Unknown effect",
			fmt.Sprintf("%q is not an effect of the host contract%s\nEffects: %s.",
				spec.Name, suggest(spec.Name, contract.EffectNames()), strings.Join(contract.EffectNames(), ", "))))
	}
	for _, kv := range pairs {
		if kv.name == "effect" {
			continue
		}
		arg, ok := effect.Arg(kv.name)
		if !ok {
			var names []string
			for _, a := range effect.Args {
				names = append(names, a.Name)
			}
			detail := fmt.Sprintf("Effect %q has no argument %q%s", spec.Name, kv.name, suggest(kv.name, names))
			if len(names) == 0 {
				detail = fmt.Sprintf("Effect %q takes no arguments.", spec.Name)
			}
			diags = append(diags, errorAt(kv.keyRange, "Unknown effect argument", detail))
			continue
		}
		v, d := kv.value.Value(nil)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		val, err := argValue(arg, v)
		if err != nil {
			diags = append(diags, errorAt(kv.value.Range(), "Invalid effect argument",
				fmt.Sprintf("Argument %q of effect %q: %s.", kv.name, spec.Name, err)))
			continue
		}
		spec.Args = append(spec.Args, ArgSpec{Name: kv.name, Value: val})
	}
	return spec, diags
}

// argValue converts an expected argument to the engine's representation:
// string, float64 or bool.
func argValue(arg contract.Arg, v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, fmt.Errorf("null is not a value; leave the argument out to not check it")
	}
	t := v.Type()
	switch arg.Type {
	case contract.Bool:
		if t != cty.Bool {
			return nil, fmt.Errorf("want a bool, got %s", t.FriendlyName())
		}
	case contract.Int:
		if t != cty.Number {
			return nil, fmt.Errorf("want a number, got %s", t.FriendlyName())
		}
	case contract.String:
		if t != cty.String {
			return nil, fmt.Errorf("want a string, got %s", t.FriendlyName())
		}
		if len(arg.Enum) > 0 && !contains(arg.Enum, v.AsString()) {
			return nil, fmt.Errorf("%q is not one of %s", v.AsString(), quoteList(arg.Enum))
		}
	}
	return scalarValue(v)
}
