package rules

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// A property's scope in the run's history: the property-pattern scope
// "after Q until R" (Dwyer, Avrunin and Corbett). A never or always_emits
// property with `after` holds only while the scope is open: from an event
// or effect of After on, until one of Until, or until the window or the
// run it opened in ends (Within). verify keeps whether the scope is open
// itself, from what the policy did and the events it saw, so a property
// with a scope speaks of the policy's behaviour, never of its slots: a
// policy that forgets its own bookkeeping cannot make it hold vacuously.
//
// When a marker takes effect, within one decision:
//   - an event marker, before the decision's effects: after = { event =
//     "command" } opens the scope for the command's own effects, and
//     until = { event = "request" } closes it before the request's;
//   - an effect marker, at that effect: the effects after it in the same
//     decision are inside (after) or outside (until) the scope;
//   - within = "window" closes the scope when the host's window changes
//     (after the decision that committed a reset), within = "run" after
//     the decision of `settled`.

// Marker is an event or an effect that opens or closes a property's
// scope.
type Marker struct {
	// Event, with When (nil: always) over the event and the state before
	// it; or Effect, with With, the effect's arguments to match.
	Event  string
	When   *lang.Program
	Effect string
	With   map[string]any
	// Then, on an after marker, is what must follow it for the scope to
	// open: "a warning injected, then its turn completed" is the warning
	// made durable. Until Then comes the scope is armed, not open; an event
	// Then is the next event of its name, and one that does not meet its
	// condition disarms the scope (the turn that carried the warning
	// failed, so the warning is not durable), as does one of its Unless.
	Then *Marker
	// Unless, on a then, are events that drop the arming when they come
	// first: the seed's "discarded on transition".
	Unless       []string
	UnlessRanges []hcl.Range
	// Inclusive, on an until event, keeps that event's own decision
	// inside the scope: the scope closes after its effects, not before.
	// "Until the attempt's error, which must itself warn", or "until the
	// run settles, whatever the settlement did".
	Inclusive bool
	Range     hcl.Range

	whenExpr hcl.Expression
}

// ScopeOpenedAt is the scope's own name for the clock (now_ms) of the
// event whose decision opened it: `event.now_ms < scope.opened_ms +
// param.cooldown_ms` says "within the cooldown of the event that opened
// the scope".
const ScopeOpenedAt = "opened_ms"

// ScopeOpenings is the scope's own name for how many times it opened
// without closing in between: "after a checkpoint then its failed
// summary, until a saved one" opens at each failure in a row, so
// `scope.openings >= param.failure_limit` is the pause.
const ScopeOpenings = "openings"

// ScopeFields are what a scoped property's conditions may read as
// scope.NAME: opened_ms, openings, and each argument of the effect that opens it
// (when every after marker is that effect: `after = { effect = "compact" }`
// makes scope.attempt the attempt compact carried). A scope opened again
// remembers its latest opening. Each field's Index is its position after
// the policy's slots in the state verify evaluates the conditions on.
func (p *Property) ScopeFields(slots int) []lang.Field {
	if !p.Scoped() {
		return nil
	}
	out := []lang.Field{{Name: ScopeOpenedAt, Type: lang.Int, Index: slots}, {Name: ScopeOpenings, Type: lang.Int, Index: slots + 1}}
	effect := p.After[0].Effect
	for _, m := range p.After {
		if m.Effect != effect {
			return out // an event opens it, or two effects do: no arguments
		}
	}
	def, ok := contract.LookupEffect(effect)
	if !ok {
		return out
	}
	for _, a := range def.Args {
		out = append(out, lang.Field{Name: a.Name, Type: LangType(a.Type), Enum: a.Enum, Index: slots + len(out)})
	}
	return out
}

// ScopeReads are the scope fields the property's conditions read, in
// ScopeFields' order: verify keeps only those in its states.
func (p *Property) ScopeReads() []string {
	read := map[string]bool{}
	srcs := p.ScopeSources()
	for _, src := range srcs {
		for _, x := range scopeRef.FindAllStringSubmatch(src, -1) {
			read[x[1]] = true
		}
	}
	var out []string
	for _, f := range p.ScopeFields(0) {
		if read[f.Name] {
			out = append(out, f.Name)
		}
	}
	return out
}

// ScopeSources are the sources of the conditions that may read what the
// scope remembers: the property's when, its markers' and within_ms.
func (p *Property) ScopeSources() []string {
	var srcs []string
	for _, w := range p.When {
		srcs = append(srcs, w.Source)
	}
	for _, m := range p.ScopeMarkers() {
		if m.When != nil {
			srcs = append(srcs, m.When.Source)
		}
	}
	if p.WithinMs != nil {
		srcs = append(srcs, p.WithinMs.Source)
	}
	return srcs
}

var scopeRef = regexp.MustCompile(`\bscope\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)`)

// ScopeMarkers are every marker of the property's scope: its after and
// until markers and the thens that follow them.
func (p *Property) ScopeMarkers() []*Marker {
	var out []*Marker
	for _, m := range append(append([]*Marker(nil), p.After...), p.Until...) {
		out = append(out, m)
		if m.Then != nil {
			out = append(out, m.Then)
		}
	}
	return out
}

// Scoped reports whether the property holds only inside a scope.
func (p *Property) Scoped() bool { return len(p.After) > 0 }

// ScopeText says the scope as a reader would: "after commit_reset { stop
// = true } until request (when event.user_input), within a window".
func (p *Property) ScopeText() string {
	if !p.Scoped() {
		return ""
	}
	s := "after " + markersText(p.After)
	if len(p.Until) > 0 {
		s += " until " + markersText(p.Until)
	}
	if p.Within != "" {
		s += ", within a " + p.Within
	}
	if p.WithinMs != nil {
		s += ", for " + p.WithinMs.Source + " ms"
	}
	return s
}

func markersText(ms []*Marker) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += " or "
		}
		out += m.String()
	}
	return out
}

func (m *Marker) String() string {
	if m.Then != nil {
		first := *m
		first.Then = nil
		return first.String() + " then " + m.Then.String()
	}
	if m.Event != "" {
		if m.whenExpr != nil {
			if v, ok := plainLiteral(m.whenExpr); ok && v.Type() == cty.String {
				if m.Inclusive {
					return fmt.Sprintf("%s (when %s, its own decision included)", m.Event, v.AsString())
				}
				return fmt.Sprintf("%s (when %s)", m.Event, v.AsString())
			}
		}
		if m.Inclusive {
			return m.Event + " (its own decision included)"
		}
		return m.Event
	}
	return withText(m.Effect, m.With)
}

// withText is an effect and the arguments it must have, as written.
func withText(effect string, with map[string]any) string {
	if len(with) == 0 {
		return effect
	}
	s := effect + " {"
	for i, k := range slices.Sorted(maps.Keys(with)) {
		if i > 0 {
			s += ","
		}
		v := with[k]
		if str, ok := v.(string); ok {
			s += fmt.Sprintf(" %s = %q", k, str)
		} else {
			s += fmt.Sprintf(" %s = %v", k, v)
		}
	}
	return s + " }"
}

// decodeMarkers reads `after` or `until`: one object or a list of them,
// each { event = "EVENT", when = "…" } or { effect = "EFFECT", with = {…} }.
func decodeMarkers(a *hcl.Attribute) ([]*Marker, hcl.Diagnostics) {
	var items []hcl.Expression
	if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
		for _, x := range t.Exprs {
			items = append(items, x)
		}
		if len(items) == 0 {
			return nil, hcl.Diagnostics{errorAt(ptr(a.Expr.Range()), "Empty "+a.Name, "%s lists one or more events or effects", a.Name)}
		}
	} else {
		items = []hcl.Expression{a.Expr}
	}
	var out []*Marker
	var diags hcl.Diagnostics
	for _, item := range items {
		m, d := decodeMarker(item, a.Name, a.Name == "after")
		diags = append(diags, d...)
		if m != nil {
			out = append(out, m)
		}
	}
	return out, diags
}

// decodeMarker reads one { event = …, when = … } or { effect = …, with =
// … }, with then when allowed.
func decodeMarker(item hcl.Expression, what string, thenAllowed bool) (*Marker, hcl.Diagnostics) {
	es, diags := objectEntries(item, what)
	if diags.HasErrors() {
		return nil, diags
	}
	m := &Marker{Range: item.Range()}
	for _, e := range es {
		switch e.Key {
		case "event", "effect":
			s, d := literalString(e.Value, e.Key)
			diags = append(diags, d...)
			if e.Key == "event" {
				m.Event = s
			} else {
				m.Effect = s
			}
		case "when":
			m.whenExpr = e.Value
		case "with":
			w, d := decodeWith(e.Value)
			diags = append(diags, d...)
			m.With = w
		case "then":
			if !thenAllowed {
				diags = append(diags, errorAt(ptr(e.KeyRange), "Unexpected then", "then arms an after scope: it follows after's event or effect"))
				continue
			}
			t, d := decodeMarker(e.Value, "then", false)
			diags = append(diags, d...)
			m.Then = t
		case "inclusive":
			if what != "until" {
				diags = append(diags, errorAt(ptr(e.KeyRange), "Unexpected inclusive", "inclusive keeps an until event's own decision inside the scope; it goes on an until marker"))
				continue
			}
			v, d := literalValue(e.Value, "inclusive")
			diags = append(diags, d...)
			if !d.HasErrors() {
				if v.IsNull() || v.Type() != cty.Bool {
					diags = append(diags, errorAt(ptr(e.Value.Range()), "Expected a bool", "inclusive is true or false"))
				} else {
					m.Inclusive = v.True()
				}
			}
		case "unless":
			if what != "then" {
				diags = append(diags, errorAt(ptr(e.KeyRange), "Unexpected unless", "unless lists the events that disarm a then"))
				continue
			}
			names, ranges, d := stringOrList(e.Value, "an event name")
			diags = append(diags, d...)
			m.Unless, m.UnlessRanges = names, ranges
		default:
			diags = append(diags, errorAt(ptr(e.KeyRange), "Unexpected key", "%s takes event (with when) or effect (with with), and after also then; not %s", what, e.Key))
		}
	}
	switch {
	case (m.Event == "") == (m.Effect == ""):
		diags = append(diags, errorAt(ptr(item.Range()), "Expected an event or an effect", "each of %s is { event = \"EVENT\", when = \"…\" } or { effect = \"EFFECT\", with = { … } }", what))
	case m.Event != "" && m.With != nil:
		diags = append(diags, errorAt(ptr(item.Range()), "Unexpected with", "with matches an effect's arguments; an event takes when"))
	case m.Effect != "" && m.whenExpr != nil:
		diags = append(diags, errorAt(ptr(item.Range()), "Unexpected when", "when is a condition on an event; an effect takes with"))
	case m.Effect != "" && m.Inclusive:
		diags = append(diags, errorAt(ptr(item.Range()), "Unexpected inclusive", "an effect marker takes effect at its place among the decision's effects; inclusive is for an until event"))
	}
	return m, diags
}

// decodeWith reads { arg = literal, … }: an effect's arguments to match.
func decodeWith(expr hcl.Expression) (map[string]any, hcl.Diagnostics) {
	v, diags := literalValue(expr, "with")
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, hcl.Diagnostics{errorAt(ptr(expr.Range()), "Expected an object", "with lists effect arguments, as { continue = true }")}
	}
	out := map[string]any{}
	for k, x := range v.AsValueMap() {
		switch x.Type() {
		case cty.Bool:
			out[k] = x.True()
		case cty.Number:
			f, _ := x.AsBigFloat().Float64()
			out[k] = f
		case cty.String:
			out[k] = x.AsString()
		default:
			diags = append(diags, errorAt(ptr(expr.Range()), "Wrong argument value", "with %s: a bool, number or string", k))
		}
	}
	return out, diags
}

// compileMarkers checks a scope's events and effects against the contract
// and compiles each event's condition against that event, with scope
// (nil: none, note says why) for what the scope remembers.
func (c *compileCtx) compileMarkers(ms []*Marker, scope, thenScope []lang.Field, note string) {
	for _, m := range ms {
		if m.Then != nil {
			c.compileMarkers([]*Marker{m.Then}, thenScope, thenScope, note)
		}
		for i, n := range m.Unless {
			if _, ok := contract.LookupEvent(n); !ok {
				c.add(errorAt(ptr(m.UnlessRanges[i]), "Unknown event", "%q is not an event of the host contract%s", n, suggestName(n, contract.EventNames())))
			}
		}
		if m.Event != "" {
			plan := c.p.PlanFor(m.Event)
			if _, ok := contract.LookupEvent(m.Event); !ok || plan == nil {
				c.add(errorAt(ptr(m.Range), "Unknown event", "%q is not an event of the host contract%s", m.Event, suggestName(m.Event, contract.EventNames())))
				continue
			}
			if m.whenExpr != nil {
				if prog := c.expr(m.whenExpr, c.scopedEnv(c.eventEnv(m.Event, plan), scope, note), "a condition"); prog != nil {
					if prog.Type != lang.Bool {
						c.add(errorAt(ptr(m.whenExpr.Range()), "Wrong condition type", "when must be a bool expression, not %s", prog.Type))
						continue
					}
					m.When = prog
				}
			}
			continue
		}
		def, ok := contract.LookupEffect(m.Effect)
		if !ok {
			c.add(errorAt(ptr(m.Range), "Unknown effect", "%q is not an effect of the host contract%s", m.Effect, suggestName(m.Effect, contract.EffectNames())))
			continue
		}
		for k := range m.With {
			if _, ok := def.Arg(k); !ok {
				c.add(errorAt(ptr(m.Range), "Unknown effect argument", "effect %q has no argument %q", m.Effect, k))
			}
		}
	}
}

// scopedEnv is env with scope.NAME reading scope (nil: env itself, whose
// scope names nothing, for the reason note gives).
func (c *compileCtx) scopedEnv(env *lang.Env, scope []lang.Field, note string) *lang.Env {
	if scope == nil && note == "" {
		return env
	}
	return &lang.Env{EventName: env.EventName, Event: env.Event, State: env.State, Params: env.Params, Messages: env.Messages, Top: env.Top,
		Folded: env.Folded, Trees: env.Trees, CheckerEvent: env.CheckerEvent, Scope: scope, ScopeNote: note}
}
