package rules

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// DecisionKind says what a decision means to a reader of its figures:
// replay, the report and the charts count and mark decisions by the kinds
// the policy declares, never by the names of its rules and messages.
//
//	message "close_out_nudge" {
//	  kind = reminder        # every inject of it is a reminder
//	  text = "…"
//	}
//	rule "commit_at_hard_reserve" {
//	  kind = hard_reserve    # every firing of it is a hard reserve
//	  …
//	}
//
// A decision's kinds are those of the rules that fired and of the messages
// they injected; a decision with none is routine.
type DecisionKind string

const (
	KindReminder    DecisionKind = "reminder"
	KindWarning     DecisionKind = "warning"
	KindReset       DecisionKind = "reset"
	KindCheckpoint  DecisionKind = "checkpoint"
	KindHardReserve DecisionKind = "hard_reserve"
)

// DecisionKinds are the kinds, in the order a window meets them.
var DecisionKinds = []DecisionKind{KindReminder, KindWarning, KindCheckpoint, KindReset, KindHardReserve}

// kindNames are DecisionKinds as strings, for suggestions.
var kindNames = func() []string {
	out := make([]string, len(DecisionKinds))
	for i, k := range DecisionKinds {
		out[i] = string(k)
	}
	return out
}()

// decodeKind reads a `kind = NAME` attribute: a bare keyword (or a plain
// quoted string, never a template), one of DecisionKinds.
func decodeKind(a *hcl.Attribute) (DecisionKind, hcl.Diagnostics) {
	k := hcl.ExprAsKeyword(a.Expr)
	if v, ok := plainLiteral(a.Expr); ok && k == "" && v.Type() == cty.String {
		k = v.AsString()
	}
	if k == "" {
		return "", hcl.Diagnostics{errorAt(ptr(a.Expr.Range()), "Not a decision kind",
			"kind must be one of %s, written as a bare word", strings.Join(kindNames, ", "))}
	}
	for _, d := range DecisionKinds {
		if string(d) == k {
			return d, nil
		}
	}
	return "", hcl.Diagnostics{errorAt(ptr(a.Expr.Range()), "Unknown decision kind",
		"%q is not a decision kind: one of %s%s", k, strings.Join(kindNames, ", "), lang.Suggest(k, kindNames))}
}

// DeclaresKinds reports whether any rule or message of p declares a kind.
func (p *Policy) DeclaresKinds() bool {
	for _, m := range p.Messages {
		if m.Kind != "" {
			return true
		}
	}
	for _, r := range p.Rules {
		if r.Kind != "" {
			return true
		}
	}
	return false
}

// meaningfulEffects are the effects whose decisions a reader of a replay
// wants told apart: a message given to the model, a window cut or
// summarised.
var meaningfulEffects = map[string]bool{"inject": true, "commit_reset": true, "provide_reset": true, "checkpoint": true, "compact": true}

// UndeclaredKinds warns when a policy injects messages or cuts windows but
// declares no decision kind: its replays, reports and charts would then
// count no reminder, warning or hard reserve, with nothing else saying so.
// The warning stands at the first rule with such an effect.
func UndeclaredKinds(p *Policy) hcl.Diagnostics {
	if p.DeclaresKinds() {
		return nil
	}
	for _, r := range p.Rules {
		for _, e := range r.Effects {
			if !meaningfulEffects[e.Name] {
				continue
			}
			return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "No decision kinds declared",
				Detail: "policy " + quote(p.Name) + " emits " + e.Name + " (rule " + quote(r.Name) + ") but no message or rule declares a kind: " +
					"replay, report and charts count reminders, warnings, checkpoints, resets and hard reserves only where the policy says " +
					"(kind = " + strings.Join(kindNames, ", ") + ")",
				Subject: ptr(e.NameRange)}}
		}
	}
	return nil
}

// KindSet is a set of decision kinds.
type KindSet uint8

// Has reports whether k is in the set.
func (s KindSet) Has(k DecisionKind) bool { return s&kindBit(k) != 0 }

// Kinds lists the set in DecisionKinds order.
func (s KindSet) Kinds() []DecisionKind {
	var out []DecisionKind
	for _, k := range DecisionKinds {
		if s.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

func kindBit(k DecisionKind) KindSet {
	for i, d := range DecisionKinds {
		if d == k {
			return 1 << i
		}
	}
	return 0
}

// KindIndex tells a decision's kinds from the names of the rules that
// fired and the messages they injected, by the policy's declarations.
type KindIndex struct {
	rules, messages map[string]KindSet
}

// NewKindIndex indexes p's declared kinds.
func NewKindIndex(p *Policy) *KindIndex {
	x := &KindIndex{rules: map[string]KindSet{}, messages: map[string]KindSet{}}
	for _, r := range p.Rules {
		if r.Kind != "" {
			x.rules[r.Name] |= kindBit(r.Kind)
		}
	}
	for _, m := range p.Messages {
		if m.Kind != "" {
			x.messages[m.Name] |= kindBit(m.Kind)
		}
	}
	return x
}

// Empty reports whether the policy declared no kind at all.
func (x *KindIndex) Empty() bool { return len(x.rules) == 0 && len(x.messages) == 0 }

// Rule is the kind a rule declares (an empty set when none).
func (x *KindIndex) Rule(name string) KindSet { return x.rules[name] }

// Message is the kind a message declares (an empty set when none).
func (x *KindIndex) Message(name string) KindSet { return x.messages[name] }
