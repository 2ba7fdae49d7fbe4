package rules

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// PropertyKind says which sentence a property block states.
type PropertyKind int

const (
	// Always: an invariant over state, params, derived values and the
	// common facts, after every event.
	Always PropertyKind = iota + 1
	// Never: an event (and condition) never yields an effect.
	Never
	// AtMost: at most N of an effect per window or per cycle.
	AtMost
	// NoLoop: no cycle of events without new input in which an effect
	// keeps continuing the run.
	NoLoop
	// AlwaysEmits: an obligation. Each of the events On, when its
	// condition holds on the event and the state before it, yields the
	// effect (with those arguments): "while on, every native compaction is
	// cancelled".
	AlwaysEmits
)

func (k PropertyKind) String() string {
	switch k {
	case Always:
		return "always"
	case Never:
		return "never"
	case AtMost:
		return "at_most"
	case NoLoop:
		return "no_loop"
	case AlwaysEmits:
		return "always_emits"
	}
	return "invalid"
}

// Property is one sentence a policy declares about itself, checked by
// `resetpolicy verify` over every state the policy can reach.
type Property struct {
	Name string
	Kind PropertyKind
	// Always holds the invariant (Kind Always).
	Always *lang.Program
	// Effect and With select the effects a Never, AtMost or NoLoop
	// property is about: the effect of that name whose listed arguments
	// have these values.
	Effect string
	With   map[string]any
	// On limits a Never property to these events (none: every event) and
	// names the events an AlwaysEmits property obliges; When, per event
	// name, the condition on the event and the state before it under which
	// the effect is forbidden (Never) or required (AlwaysEmits).
	On   []string
	When map[string]*lang.Program
	// Count and Per: at most Count per "window" or per "cycle"; a cycle
	// ends on the events CycleEndsOn.
	Count       int
	Per         string
	CycleEndsOn []string
	// CycleEndsWhen, per event of CycleEndsOn, narrows when that event
	// ends a cycle (none: always).
	CycleEndsWhen map[string]*lang.Program
	// InputEvents end a NoLoop cycle: events that bring new input (or
	// progress), each when its InputWhen condition holds (none: always).
	// A request whose user_input is true always does.
	InputEvents []string
	InputWhen   map[string]*lang.Program
	// After, Until and Within give a never or always_emits property a
	// scope in the run's history (history.go): it holds only from one of
	// After on, until one of Until or the end of the window or run
	// ("window", "run"; "" none) it opened in.
	After, Until []*Marker
	Within       string
	// WithinMs, when set, limits the scope to that many ms of the host's
	// clock from its latest opening, evaluated then (over params and what
	// the scope remembers): "for cooldown_ms after the checkpoint is saved".
	WithinMs  *lang.Program
	DeclRange hcl.Range

	withinMsExpr hcl.Expression

	whenExpr, alwaysExpr hcl.Expression
	cycleWhen, inputWhen map[string]hcl.Expression
}

// VerifySettings is the policy's `verify` block: finite domains for facts
// the guards cannot bound, and the built-in findings the author expects.
type VerifySettings struct {
	// Domains maps a fact ("tokens") or an event's fact ("command.args")
	// to the values the exploration tries.
	Domains map[string][]any
	// Unfired are rules expected never to fire; Unreached are enum values
	// ("slot.value") expected never to be held.
	Unfired   []string
	Unreached []string
	// Params lists, per param, the values verify proves the policy for
	// besides the one in force, as --set would give them: verify runs once
	// per combination (at most MaxVerifyParamSets).
	Params     map[string][]string
	ParamNames []string
	DeclRange  hcl.Range
}

// MaxVerifyParamSets bounds the combinations a verify block's params make.
const MaxVerifyParamSets = 16

var propertySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "always"}, {Name: "never"}, {Name: "at_most"}, {Name: "no_loop_of"}, {Name: "always_emits"},
		{Name: "of"}, {Name: "with"}, {Name: "on"}, {Name: "when"},
		{Name: "per"}, {Name: "cycle_ends_on"}, {Name: "new_input_on"},
		{Name: "after"}, {Name: "until"}, {Name: "within"}, {Name: "within_ms"},
	},
}

var verifySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "domain"}, {Name: "unfired"}, {Name: "unreached"}, {Name: "params"}},
}

func decodeProperty(b *hcl.Block) (*Property, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, propertySchema)
	if diags.HasErrors() {
		return nil, diags
	}
	p := &Property{Name: b.Labels[0], DeclRange: b.DefRange}
	attr := func(name string) (*hcl.Attribute, bool) { a, ok := content.Attributes[name]; return a, ok }
	var kinds []string
	for _, k := range []string{"always", "never", "at_most", "no_loop_of", "always_emits"} {
		if _, ok := attr(k); ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return nil, append(diags, errorAt(ptr(b.DefRange), "Ambiguous property", "a property states one sentence: always = \"…\", never = \"EFFECT\", always_emits = \"EFFECT\" (with on), at_most = N (with of and per) or no_loop_of = \"EFFECT\""))
	}
	allowed := map[string][]string{
		"always":       {"always"},
		"never":        {"never", "with", "on", "when", "after", "until", "within", "within_ms"},
		"at_most":      {"at_most", "of", "with", "on", "per", "cycle_ends_on"},
		"no_loop_of":   {"no_loop_of", "with", "new_input_on"},
		"always_emits": {"always_emits", "with", "on", "when", "after", "until", "within", "within_ms"},
	}[kinds[0]]
	for name, a := range content.Attributes {
		if !slices.Contains(allowed, name) {
			diags = append(diags, errorAt(ptr(a.NameRange), "Unexpected attribute", "%s does not go with %s in a property", name, kinds[0]))
		}
	}
	var d hcl.Diagnostics
	switch kinds[0] {
	case "always":
		p.Kind = Always
		p.alwaysExpr = content.Attributes["always"].Expr
	case "never", "always_emits":
		p.Kind = Never
		if kinds[0] == "always_emits" {
			p.Kind = AlwaysEmits
		}
		p.Effect, d = literalString(content.Attributes[kinds[0]].Expr, kinds[0])
		diags = append(diags, d...)
		if a, ok := attr("on"); ok {
			p.On, _, d = stringOrList(a.Expr, "an event name")
			diags = append(diags, d...)
		} else if p.Kind == AlwaysEmits {
			// An obligation over every event would oblige events no rule
			// handles; it names the events it is about.
			diags = append(diags, errorAt(ptr(b.DefRange), "Missing on", "always_emits needs on = [EVENT…], the events that must yield the effect"))
		}
		if a, ok := attr("when"); ok {
			p.whenExpr = a.Expr
		}
		diags = append(diags, p.decodeScope(b, attr)...)
	case "at_most":
		p.Kind = AtMost
		v, d := literalValue(content.Attributes["at_most"].Expr, "at_most")
		diags = append(diags, d...)
		if !d.HasErrors() {
			if v.IsNull() || v.Type() != cty.Number || !v.AsBigFloat().IsInt() || v.AsBigFloat().Sign() < 0 {
				diags = append(diags, errorAt(ptr(content.Attributes["at_most"].Expr.Range()), "Expected a count", "at_most is a whole number, 0 or more"))
			} else {
				n, _ := v.AsBigFloat().Int64()
				p.Count = int(min(n, 1000))
			}
		}
		a, ok := attr("of")
		if !ok {
			diags = append(diags, errorAt(ptr(b.DefRange), "Missing of", "at_most needs of = \"EFFECT\""))
		} else {
			p.Effect, d = literalString(a.Expr, "of")
			diags = append(diags, d...)
		}
		p.Per = "window"
		if a, ok := attr("per"); ok {
			p.Per, d = literalString(a.Expr, "per")
			diags = append(diags, d...)
			if p.Per != "window" && p.Per != "cycle" {
				diags = append(diags, errorAt(ptr(a.Expr.Range()), "Unknown per", "per is \"window\" or \"cycle\""))
			}
		}
		if a, ok := attr("on"); ok {
			p.On, _, d = stringOrList(a.Expr, "an event name")
			diags = append(diags, d...)
		}
		if a, ok := attr("cycle_ends_on"); ok {
			p.CycleEndsOn, p.cycleWhen, d = eventsWhen(a.Expr, "cycle_ends_on")
			diags = append(diags, d...)
		}
		if p.Per == "cycle" && len(p.CycleEndsOn) == 0 {
			diags = append(diags, errorAt(ptr(b.DefRange), "Missing cycle_ends_on", "per = \"cycle\" needs cycle_ends_on = [EVENT…], the events that start a new cycle"))
		}
	case "no_loop_of":
		p.Kind = NoLoop
		p.Effect, d = literalString(content.Attributes["no_loop_of"].Expr, "no_loop_of")
		diags = append(diags, d...)
		if a, ok := attr("new_input_on"); ok {
			p.InputEvents, p.inputWhen, d = eventsWhen(a.Expr, "new_input_on")
			diags = append(diags, d...)
		}
	}
	if a, ok := attr("with"); ok {
		w, d := decodeWith(a.Expr)
		diags = append(diags, d...)
		p.With = w
	}
	return p, diags
}

// decodeScope reads a property's after, until and within.
func (p *Property) decodeScope(b *hcl.Block, attr func(string) (*hcl.Attribute, bool)) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a, ok := attr("after"); ok {
		ms, d := decodeMarkers(a)
		diags = append(diags, d...)
		p.After = ms
	}
	if a, ok := attr("until"); ok {
		ms, d := decodeMarkers(a)
		diags = append(diags, d...)
		p.Until = ms
	}
	diags = append(diags, thenClosedAtOnce(p.After, p.Until)...)
	if a, ok := attr("within"); ok {
		w, d := literalString(a.Expr, "within")
		diags = append(diags, d...)
		if !d.HasErrors() && w != "window" && w != "run" {
			diags = append(diags, errorAt(ptr(a.Expr.Range()), "Unknown within", "within is \"window\" or \"run\": the scope also ends with the window or the run it opened in"))
		}
		p.Within = w
	}
	if a, ok := attr("within_ms"); ok {
		p.withinMsExpr = a.Expr
	}
	if _, hasAfter := attr("after"); !hasAfter {
		for _, k := range []string{"until", "within", "within_ms"} {
			if a, ok := attr(k); ok {
				diags = append(diags, errorAt(ptr(a.NameRange), "Missing after", "%s ends a scope that after = { … } opens", k))
			}
		}
	}
	return diags
}

func decodeVerify(b *hcl.Block) (*VerifySettings, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, verifySchema)
	if diags.HasErrors() {
		return nil, diags
	}
	v := &VerifySettings{DeclRange: b.DefRange, Domains: map[string][]any{}}
	if a, ok := content.Attributes["domain"]; ok {
		es, d := objectEntries(a.Expr, "domain")
		diags = append(diags, d...)
		for _, e := range es {
			val, d := literalValue(e.Value, "a domain")
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			if val.IsNull() || !(val.Type().IsTupleType() || val.Type().IsListType()) || val.LengthInt() == 0 || val.LengthInt() > 64 {
				diags = append(diags, errorAt(ptr(e.Value.Range()), "Expected a list", "a domain lists 1 to 64 values"))
				continue
			}
			for it := val.ElementIterator(); it.Next(); {
				_, x := it.Element()
				switch x.Type() {
				case cty.Bool:
					v.Domains[e.Key] = append(v.Domains[e.Key], x.True())
				case cty.Number:
					f, _ := x.AsBigFloat().Float64()
					v.Domains[e.Key] = append(v.Domains[e.Key], f)
				case cty.String:
					v.Domains[e.Key] = append(v.Domains[e.Key], x.AsString())
				default:
					diags = append(diags, errorAt(ptr(e.Value.Range()), "Wrong domain value", "domain values are bools, numbers or strings"))
				}
			}
		}
	}
	if a, ok := content.Attributes["params"]; ok {
		v.Params = map[string][]string{}
		es, d := objectEntries(a.Expr, "params")
		diags = append(diags, d...)
		sets := 1
		for _, e := range es {
			val, d := literalValue(e.Value, "a param's values")
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			if val.IsNull() || !(val.Type().IsTupleType() || val.Type().IsListType()) || val.LengthInt() == 0 {
				diags = append(diags, errorAt(ptr(e.Value.Range()), "Expected a list", "params lists the values of each param to prove the policy for, as { force_limit = [270000, 300000] }"))
				continue
			}
			for it := val.ElementIterator(); it.Next(); {
				_, x := it.Element()
				switch x.Type() {
				case cty.Bool:
					v.Params[e.Key] = append(v.Params[e.Key], fmt.Sprint(x.True()))
				case cty.Number:
					v.Params[e.Key] = append(v.Params[e.Key], x.AsBigFloat().Text('f', -1))
				case cty.String:
					v.Params[e.Key] = append(v.Params[e.Key], x.AsString())
				default:
					diags = append(diags, errorAt(ptr(e.Value.Range()), "Wrong param value", "params values are bools, numbers or strings"))
				}
			}
			v.ParamNames = append(v.ParamNames, e.Key)
			sets *= len(v.Params[e.Key])
		}
		if sets > MaxVerifyParamSets {
			diags = append(diags, errorAt(ptr(a.Expr.Range()), "Too many param sets", "params make %d combinations; verify proves at most %d", sets, MaxVerifyParamSets))
		}
	}
	for _, k := range []string{"unfired", "unreached"} {
		if a, ok := content.Attributes[k]; ok {
			list, _, d := stringOrList(a.Expr, "a name")
			diags = append(diags, d...)
			if k == "unfired" {
				v.Unfired = list
			} else {
				v.Unreached = list
			}
		}
	}
	return v, diags
}

// compileProperties checks the names properties refer to and compiles
// their expressions: an invariant against the facts common to every
// event, a never condition against each event it names.
func (c *compileCtx) compileProperties() {
	p := c.p
	events := func(names []string, rng hcl.Range) {
		for _, n := range names {
			if _, ok := contract.LookupEvent(n); !ok {
				c.add(errorAt(ptr(rng), "Unknown event", "%q is not an event of the host contract%s", n, suggestName(n, contract.EventNames())))
			}
		}
	}
	for _, pr := range p.Properties {
		if pr.Effect != "" {
			if def, ok := contract.LookupEffect(pr.Effect); !ok {
				c.add(errorAt(ptr(pr.DeclRange), "Unknown effect", "%q is not an effect of the host contract%s", pr.Effect, suggestName(pr.Effect, contract.EffectNames())))
			} else {
				for k := range pr.With {
					if _, ok := def.Arg(k); !ok {
						c.add(errorAt(ptr(pr.DeclRange), "Unknown effect argument", "effect %q has no argument %q", pr.Effect, k))
					}
				}
			}
		}
		events(pr.On, pr.DeclRange)
		scope := pr.ScopeFields(len(p.Slots))
		c.compileMarkers(pr.After, nil, scope, "an after marker's condition is read before its scope opens")
		c.compileMarkers(pr.Until, scope, scope, "")
		if pr.withinMsExpr != nil {
			if prog := c.expr(pr.withinMsExpr, c.scopedEnv(c.common, scope, ""), "a duration"); prog != nil {
				if !prog.Type.Numeric() {
					c.add(errorAt(ptr(pr.withinMsExpr.Range()), "Wrong duration type", "within_ms must be a number of milliseconds, not %s", prog.Type))
				} else {
					pr.WithinMs = prog
				}
			}
		}
		events(pr.CycleEndsOn, pr.DeclRange)
		events(pr.InputEvents, pr.DeclRange)
		if pr.alwaysExpr != nil {
			if prog := c.expr(pr.alwaysExpr, c.common, "an invariant"); prog != nil {
				if prog.Type != lang.Bool {
					c.add(errorAt(ptr(pr.alwaysExpr.Range()), "Wrong invariant type", "always must be a bool expression, not %s", prog.Type))
				}
				pr.Always = prog
			}
		}
		pr.CycleEndsWhen = c.eventConditions(pr.cycleWhen)
		pr.InputWhen = c.eventConditions(pr.inputWhen)
		if pr.whenExpr != nil {
			pr.When = map[string]*lang.Program{}
			if len(pr.On) == 0 {
				// Every event: the condition sees the common facts only.
				if prog := c.expr(pr.whenExpr, c.scopedEnv(c.common, scope, "the property has no after, so no scope"), "a condition"); prog != nil && prog.Type == lang.Bool {
					pr.When[""] = prog
				}
			}
			for _, n := range pr.On {
				plan := p.PlanFor(n)
				if plan == nil {
					continue
				}
				if prog := c.expr(pr.whenExpr, c.scopedEnv(c.eventEnv(n, plan), scope, "the property has no after, so no scope"), "a condition"); prog != nil {
					if prog.Type != lang.Bool {
						c.add(errorAt(ptr(pr.whenExpr.Range()), "Wrong condition type", "when must be a bool expression, not %s", prog.Type))
						break
					}
					pr.When[n] = prog
				}
			}
		}
	}
	if v := p.Verify; v != nil {
		for _, name := range v.ParamNames {
			if _, ok := p.Param(name); !ok {
				c.add(errorAt(ptr(v.DeclRange), "Unknown param", "verify: params names param %q, which is not declared", name))
			}
		}
		for _, name := range v.Unfired {
			if !slices.ContainsFunc(p.Rules, func(r *Rule) bool { return r.Name == name }) {
				c.add(errorAt(ptr(v.DeclRange), "Unknown rule", "verify: unfired names rule %q, which is not declared", name))
			}
		}
	}
}

// decodeVerifyBlock decodes a property or the verify block into p.
func decodeVerifyBlock(p *Policy, b *hcl.Block, dup func(kind, name string, rng hcl.Range) bool) hcl.Diagnostics {
	if b.Type == "verify" {
		if p.Verify != nil {
			return hcl.Diagnostics{errorAt(ptr(b.DefRange), "Duplicate verify block", "a policy has one verify block, at %s", short(p.Verify.DeclRange))}
		}
		v, d := decodeVerify(b)
		p.Verify = v
		return d
	}
	if dup("property", b.Labels[0], b.LabelRanges[0]) {
		return nil
	}
	x, d := decodeProperty(b)
	if x != nil {
		p.Properties = append(p.Properties, x)
	}
	return d
}

// eventsWhen reads ["EVENT", …] or { EVENT = "condition" … }: events, each
// counting only when its condition holds.
func eventsWhen(expr hcl.Expression, what string) ([]string, map[string]hcl.Expression, hcl.Diagnostics) {
	if _, isObj := expr.(*hclsyntax.ObjectConsExpr); !isObj {
		names, _, d := stringOrList(expr, "an event name")
		return names, nil, d
	}
	es, diags := objectEntries(expr, what)
	var names []string
	conds := map[string]hcl.Expression{}
	for _, e := range es {
		names = append(names, e.Key)
		conds[e.Key] = e.Value
	}
	return names, conds, diags
}

// eventConditions compiles each event's condition against that event.
func (c *compileCtx) eventConditions(conds map[string]hcl.Expression) map[string]*lang.Program {
	if conds == nil {
		return nil
	}
	out := map[string]*lang.Program{}
	for n, e := range conds {
		plan := c.p.PlanFor(n)
		if plan == nil {
			continue // reported as an unknown event
		}
		if prog := c.expr(e, c.eventEnv(n, plan), "a condition"); prog != nil {
			if prog.Type != lang.Bool {
				c.add(errorAt(ptr(e.Range()), "Wrong condition type", "the condition must be a bool expression, not %s", prog.Type))
				continue
			}
			out[n] = prog
		}
	}
	return out
}

// Entry is one `slot = value(s)` of a rule's from or to, for tools that
// read the machine as written (the state graph).
type Entry = entry

// Values are the enum values the entry lists.
func (e entry) Values() []string {
	vals, _, _ := stringOrList(e.Value, "a state value")
	return vals
}

// thenClosedAtOnce rejects an until event, with no condition and not
// inclusive, that is also a then of the same property: the event that
// opens the scope would close it before its own decision, so the property
// would check nothing and hold whatever the policy does.
func thenClosedAtOnce(after, until []*Marker) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, u := range until {
		if u.Event == "" || u.whenExpr != nil || u.Inclusive {
			continue
		}
		for _, a := range after {
			if a.Then != nil && a.Then.Event == u.Event {
				diags = append(diags, errorAt(ptr(u.Range), "Scope closed as it opens", "%s opens this scope (then) and closes it (until) at once, so the property would check nothing: leave it out of until, give it a when, or make it inclusive", u.Event))
				break
			}
		}
	}
	return diags
}
