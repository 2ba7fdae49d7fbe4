package rules

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// LangType maps a contract type to the expression type.
func LangType(t contract.Type) lang.Type {
	switch t {
	case contract.Bool:
		return lang.Bool
	case contract.Int:
		return lang.Int
	case contract.String:
		return lang.String
	}
	return lang.Object
}

// FactFields lays out an event's facts: the common facts first, at the
// same index on every event, then the event's own.
func FactFields(e *contract.Event) []lang.Field {
	var out []lang.Field
	for i, f := range e.AllFacts() {
		out = append(out, lang.Field{Name: f.Name, Type: LangType(f.Type), Enum: f.Enum, Index: i})
	}
	return out
}

// checkerFacts is, for each event of the contract, the event namespace
// expr's checker sees when an expression on it is compiled: every fact of
// every event, each with the event's own type where it has the fact, and
// otherwise with the type of the first event that has it (lang.Env's
// CheckerEvent). The events then share two checker configurations (a
// fact typed two ways, a command's string args against a tool's object,
// splits them) where each had its own: for the default, 0.3 M of the
// 17 M instructions serve runs to its first answer (a configuration of
// the wider view costs more to make, so the saving is a third of the
// configurations' cost).
var checkerFacts = sync.OnceValue(func() [][]lang.Field {
	var union []lang.Field
	at := map[string]int{}
	add := func(fs []contract.Fact) {
		for i := range fs {
			if _, ok := at[fs[i].Name]; !ok {
				at[fs[i].Name] = len(union)
				union = append(union, lang.Field{Name: fs[i].Name, Type: LangType(fs[i].Type)})
			}
		}
	}
	add(contract.CommonFacts)
	for i := range contract.Events {
		add(contract.Events[i].Facts)
	}
	out := make([][]lang.Field, len(contract.Events))
	for i := range contract.Events {
		out[i] = union
		own := false
		for _, f := range contract.Events[i].Facts {
			if k, t := at[f.Name], LangType(f.Type); out[i][k].Type != t {
				if !own {
					out[i], own = slices.Clone(union), true
				}
				out[i][k].Type = t
			}
		}
	}
	return out
})

// ParamValue converts a cty param value to an expression value.
func ParamValue(v cty.Value) (lang.Type, lang.Value) {
	t := v.Type()
	switch {
	case t == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return lang.Float, lang.Value{Num: f}
	case t == cty.String:
		return lang.String, lang.Value{Str: v.AsString()}
	case t == cty.Bool:
		return lang.Bool, lang.Value{Bool: v.True()}
	case t.Equals(cty.List(cty.Number)):
		var out []float64
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			f, _ := e.AsBigFloat().Float64()
			out = append(out, f)
		}
		return lang.ListNum, lang.Value{X: out}
	case t.Equals(cty.List(cty.String)):
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, e.AsString())
		}
		return lang.ListStr, lang.Value{X: out}
	}
	return lang.Invalid, lang.Value{}
}

type compileCtx struct {
	p        *Policy
	diags    hcl.Diagnostics
	seen     map[string]bool
	params   []lang.Const
	messages []lang.Const
	state    []lang.Field
	derived  []lang.Binding
	// common is the environment of the facts every event carries. An
	// expression that compiles there is the same program on every event,
	// so it is compiled once and shared; shared caches those programs by
	// source and notCommon the sources that need an event's own facts.
	common    *lang.Env
	shared    map[string]*lang.Program
	notCommon map[string]bool
	// folded counts the string bytes folded to constants in the whole
	// policy (lang.MaxFoldedBytes).
	folded int
	trees  lang.Trees
	// eventEnvs are the environments properties' conditions are checked
	// in, one per event kind: a new one per property and event built the
	// checker's type signatures again each time.
	eventEnvs map[string]*lang.Env
}

// eventEnv is the environment of event n's facts for a property's
// condition; plan is n's.
func (c *compileCtx) eventEnv(n string, plan *Plan) *lang.Env {
	if env, ok := c.eventEnvs[n]; ok {
		return env
	}
	if c.eventEnvs == nil {
		c.eventEnvs = map[string]*lang.Env{}
	}
	env := &lang.Env{EventName: n, Event: plan.Facts, State: c.state, Params: c.params, Messages: c.messages, Top: c.derived}
	c.eventEnvs[n] = env
	return env
}

func (c *compileCtx) add(d *hcl.Diagnostic) {
	key := fmt.Sprintf("%v|%s|%s", d.Subject, d.Summary, d.Detail)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.diags = append(c.diags, d)
}

// compile checks params, then compiles derived values and every rule for
// every event it names, building the per-event plans. With later set, the
// plans are laid out with their facts and their rules are left to
// CompilePlan (see CompileOnUse).
func (p *Policy) compile(later bool) hcl.Diagnostics {
	c := &compileCtx{p: p, seen: map[string]bool{}}
	for _, x := range p.Params {
		if x.Value == cty.NilVal {
			return nil // its type or default is already reported
		}
		t, v := ParamValue(x.Value)
		c.params = append(c.params, lang.Const{Name: x.Name, Type: t, Value: v})
	}
	for _, m := range p.Messages {
		c.messages = append(c.messages, lang.Const{Name: m.Name, Type: lang.String, Value: lang.Value{Str: m.Text}})
	}
	for _, s := range p.Slots {
		c.state = append(c.state, lang.Field{Name: s.Name, Type: s.Type, Enum: s.Enum, Index: s.Index})
	}
	c.validateParams()
	if c.diags.HasErrors() {
		return c.diags
	}
	common := &contract.Event{Name: "(any)"}
	commonFacts := FactFields(common)
	c.shared, c.notCommon = map[string]*lang.Program{}, map[string]bool{}
	for _, d := range p.Derived {
		env := &lang.Env{EventName: "(derived values see only the facts common to every event)", Event: commonFacts, State: c.state, Params: c.params, Messages: c.messages, Top: slices.Clone(c.derived), Folded: &c.folded, Trees: &c.trees}
		prog := c.expr(d.Expr, env, "a derived value")
		if prog == nil {
			continue
		}
		if prog.Type != lang.Bool && !prog.Type.Numeric() && prog.Type != lang.String {
			c.add(errorAt(ptr(d.Expr.Range()), "Wrong derived type", "a derived value is a bool, a number or a string, not %s", prog.Type))
			continue
		}
		d.Prog = prog
		// A light derived value is computed where it is read; a heavy one
		// once per event, in its memo slot (slot i+1 for the i-th value).
		memo := 0
		if prog.Weight > lang.InlineWeight {
			memo = len(c.derived) + 1
		}
		c.derived = append(c.derived, lang.Binding{Name: d.Name, Prog: prog, Memo: memo})
	}
	c.common = &lang.Env{EventName: "(any)", Event: commonFacts, State: c.state, Params: c.params, Messages: c.messages, Top: c.derived, Folded: &c.folded, Trees: &c.trees}
	c.ruleEvents(p.Rules)
	for i := range contract.Events {
		ev := &contract.Events[i]
		plan := &Plan{Event: ev, Facts: FactFields(ev)}
		if !later {
			c.plan(i, plan)
		}
		p.Plans = append(p.Plans, plan)
	}
	if later {
		p.later = &laterPlans{c: c, done: make([]atomic.Bool, len(p.Plans)), errs: make([]error, len(p.Plans))}
		return c.diags
	}
	c.compileProperties()
	return c.diags
}

// ruleEvents checks the events each rule names.
func (c *compileCtx) ruleEvents(rs []*Rule) {
	for _, r := range rs {
		known := false
		for i, name := range r.On {
			if _, ok := contract.LookupEvent(name); !ok {
				c.add(errorAt(ptr(r.OnRanges[i]), "Unknown event", "%q is not an event of the host contract%s", name, suggestName(name, contract.EventNames())))
			} else {
				known = true
			}
		}
		if !known && len(r.On) > 0 {
			// No event compiles this rule below: check the rest of it, so
			// that one run reports its other problems too, against the
			// event the did-you-mean offers, or else against every fact of
			// any event, so that a fact of the event meant is not reported
			// as a second mistake.
			c.rule(r, c.unknownEventEnv(r.On))
		}
	}
}

// unknownEventEnv is the environment a rule whose events are all unknown
// is checked in.
func (c *compileCtx) unknownEventEnv(names []string) *lang.Env {
	for _, name := range names {
		meant := lang.Closest(name, contract.EventNames())
		for i := range contract.Events {
			if contract.Events[i].Name == meant {
				ev := &contract.Events[i]
				return &lang.Env{EventName: ev.Name, Event: FactFields(ev), CheckerEvent: checkerFacts()[i], State: c.state, Params: c.params, Messages: c.messages, Top: c.derived, Folded: &c.folded, Trees: &c.trees}
			}
		}
	}
	all := slices.Clone(checkerFacts()[0])
	for i := range all {
		all[i].Index = i
	}
	return &lang.Env{EventName: "(any)", Event: all, State: c.state, Params: c.params, Messages: c.messages, Top: c.derived, Folded: &c.folded, Trees: &c.trees}
}

// plan compiles, into plan, the rules of the i-th event of the contract.
func (c *compileCtx) plan(i int, plan *Plan) {
	p := c.p
	env := &lang.Env{EventName: plan.Event.Name, Event: plan.Facts, CheckerEvent: checkerFacts()[i], State: c.state, Params: c.params, Messages: c.messages, Top: c.derived, Folded: &c.folded, Trees: &c.trees}
	for _, g := range p.Groups {
		pg := PlanGroup{Group: g}
		for _, r := range g.Rules {
			if !slices.Contains(r.On, plan.Event.Name) {
				continue
			}
			if cr := c.rule(r, env); cr != nil {
				pg.Rules = append(pg.Rules, cr)
			}
		}
		plan.Groups = append(plan.Groups, pg)
	}
}

// validateParams checks every param value in force against its
// validations: a default that fails its own validation, or an override that
// fails it, is an error at the value.
func (c *compileCtx) validateParams() {
	for i, x := range c.p.Params {
		for _, v := range x.Validations {
			env := &lang.Env{NoEvent: true, NoState: true, Params: c.params, Messages: c.messages, Folded: &c.folded, Trees: &c.trees,
				Top: []lang.Binding{{Name: "value", Prog: lang.Constant(c.params[i].Type, c.params[i].Value)}}}
			prog := c.exprString(v.Condition, v.ConditionRange, env, "a validation condition")
			if prog == nil {
				continue
			}
			if prog.Type != lang.Bool {
				c.add(errorAt(ptr(v.ConditionRange), "Wrong condition type", "a validation condition must be bool, not %s", prog.Type))
				continue
			}
			var f lang.Frame
			if prog.B(&f) && f.Err == nil {
				continue
			}
			switch {
			case x.Origin == "default":
				if d := c.p.conflict(x, v); d != nil {
					c.add(d)
					continue
				}
				c.add(errorAt(ptr(x.DefaultRange), "Invalid param default", "the default of param %q fails its own validation: %s", x.Name, v.ErrorMessage))
			case x.overrideRange != nil:
				c.add(errorAt(x.overrideRange, "Invalid param value", "param %q: %s", x.Name, v.ErrorMessage))
			default:
				c.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid param value", Detail: fmt.Sprintf("%s: param %q: %s", x.overrideText, x.Name, v.ErrorMessage)})
			}
		}
	}
}

func (c *compileCtx) rule(r *Rule, env *lang.Env) *CompiledRule {
	cr := &CompiledRule{Rule: r}
	ok := true
	for _, e := range r.From {
		s, vals := c.enumEntry(r, e, "from")
		if s == nil {
			ok = false
			continue
		}
		m := Match{Slot: s, Values: vals}
		for _, v := range vals {
			m.Mask |= 1 << slices.Index(s.Enum, v)
		}
		cr.From = append(cr.From, m)
	}
	for _, e := range r.To {
		s, vals := c.enumEntry(r, e, "to")
		if s == nil {
			ok = false
			continue
		}
		if len(vals) != 1 {
			c.add(errorAt(ptr(e.Value.Range()), "Ambiguous target state", "to sets one value per slot"))
			ok = false
			continue
		}
		v, _ := lang.EnumValue(s.Enum, vals[0])
		cr.To = append(cr.To, Target{Slot: s, Value: v})
	}
	if r.When != nil {
		if prog := c.expr(r.When, env, "a guard"); prog != nil {
			if prog.Type != lang.Bool {
				c.add(errorAt(ptr(r.When.Range()), "Wrong guard type", "when must be a bool expression, not %s", prog.Type))
				ok = false
			}
			cr.When = prog
		} else {
			ok = false
		}
	}
	for _, e := range r.Set {
		s, found := c.p.Slot(e.Key)
		if !found {
			c.add(errorAt(ptr(e.KeyRange), "Unknown slot", "rule %q sets slot %q, which is not declared%s", r.Name, e.Key, suggestName(e.Key, c.slotNames())))
			ok = false
			continue
		}
		if s.IsEnum() {
			c.add(errorAt(ptr(e.KeyRange), "Enum slot in set", "slot %q is an enum: change it with to = { %s = \"…\" }, which keeps the machine visible", s.Name, s.Name))
			ok = false
			continue
		}
		prog := c.expr(e.Value, env, "an assignment")
		if prog == nil {
			ok = false
			continue
		}
		if !assignable(s.Type, prog.Type) {
			c.add(errorAt(ptr(e.Value.Range()), "Type mismatch", "slot %q is %s; this expression is %s", s.Name, slotTypeName(s), prog.Type))
			ok = false
			continue
		}
		cr.Set = append(cr.Set, Assign{Slot: s, Prog: prog})
	}
	for _, e := range r.Effects {
		ce, good := c.effect(e, env)
		ok = ok && good
		cr.Effects = append(cr.Effects, ce)
	}
	if !ok {
		return nil
	}
	return cr
}

func (c *compileCtx) slotNames() []string {
	var out []string
	for _, s := range c.p.Slots {
		out = append(out, s.Name)
	}
	return out
}

func slotTypeName(s *Slot) string {
	if s.IsEnum() {
		return "an enum"
	}
	return s.Type.String()
}

func assignable(slot, expr lang.Type) bool {
	switch slot {
	case lang.Float:
		return expr.Numeric()
	default:
		return slot == expr
	}
}

// enumEntry checks a `from`/`to` entry: an enum slot and values it lists.
func (c *compileCtx) enumEntry(r *Rule, e entry, what string) (*Slot, []string) {
	s, found := c.p.Slot(e.Key)
	if !found {
		c.add(errorAt(ptr(e.KeyRange), "Unknown slot", "rule %q: %s names slot %q, which is not declared%s", r.Name, what, e.Key, suggestName(e.Key, c.slotNames())))
		return nil, nil
	}
	if !s.IsEnum() {
		c.add(errorAt(ptr(e.KeyRange), "Not an enum slot", "%s takes enum slots; slot %q is %s (use when and set for it)", what, s.Name, s.Type))
		return nil, nil
	}
	vals, rngs, d := stringOrList(e.Value, "a state value")
	for _, x := range d {
		c.add(x)
	}
	if d.HasErrors() {
		return nil, nil
	}
	for i, v := range vals {
		if !slices.Contains(s.Enum, v) {
			c.add(errorAt(ptr(rngs[i]), "Undeclared state", "%q is not a value of slot %q (%s)%s", v, s.Name, strings.Join(quoteAll(s.Enum), ", "), suggestName(v, s.Enum)))
			return nil, nil
		}
	}
	return s, vals
}

func (c *compileCtx) effect(e *Effect, env *lang.Env) (CompiledEffect, bool) {
	ce := CompiledEffect{Name: e.Name, Static: true}
	def, found := contract.LookupEffect(e.Name)
	if !found {
		c.add(errorAt(ptr(e.NameRange), "Unknown effect", "%q is not an effect of the host contract%s", e.Name, suggestName(e.Name, contract.EffectNames())))
		return ce, false
	}
	ok := true
	for _, a := range def.Args {
		if _, given := e.Args[a.Name]; !given && a.Required {
			c.add(errorAt(ptr(e.DeclRange), "Missing effect argument", "effect %q needs %s (%s)", e.Name, a.Name, a.Type))
			ok = false
		}
	}
	for _, attr := range sortedAttrs(e.Args) {
		arg, known := def.Arg(attr.Name)
		if !known {
			var names []string
			for _, a := range def.Args {
				names = append(names, a.Name)
			}
			c.add(errorAt(ptr(attr.NameRange), "Unknown effect argument", "effect %q has no argument %q%s", e.Name, attr.Name, suggestName(attr.Name, names)))
			ok = false
			continue
		}
		prog := c.effectArg(e, arg, attr, env)
		if prog == nil {
			ok = false
			continue
		}
		if prog.Const == nil {
			ce.Static = false
		}
		ce.Args = append(ce.Args, CompiledArg{Name: arg.Name, Type: arg.Type, Prog: prog})
	}
	return ce, ok
}

func (c *compileCtx) effectArg(e *Effect, arg contract.Arg, attr *hcl.Attribute, env *lang.Env) *lang.Program {
	rng := attr.Expr.Range()
	if arg.Literal() {
		s, d := literalString(attr.Expr, "argument "+arg.Name)
		if d.HasErrors() {
			for _, x := range d {
				c.add(x)
			}
			return nil
		}
		if arg.Message {
			if _, ok := c.p.Message(s); !ok {
				var names []string
				for _, m := range c.p.Messages {
					names = append(names, m.Name)
				}
				c.add(errorAt(ptr(rng), "Undeclared message", "effect %q refers to message %q, which is not declared%s", e.Name, s, suggestName(s, names)))
				return nil
			}
		}
		if len(arg.Enum) > 0 && !slices.Contains(arg.Enum, s) {
			c.add(errorAt(ptr(rng), "Invalid effect argument", "%s of effect %q is one of %s, not %q", arg.Name, e.Name, strings.Join(quoteAll(arg.Enum), ", "), s))
			return nil
		}
		return lang.Constant(lang.String, lang.Value{Str: s})
	}
	want := LangType(arg.Type)
	v, d := literalValue(attr.Expr, "an effect argument")
	var prog *lang.Program
	switch {
	case d.HasErrors():
		for _, x := range d {
			c.add(x)
		}
		return nil
	case v.Type() == cty.Bool:
		prog = lang.Constant(lang.Bool, lang.Value{Bool: v.True()})
	case v.Type() == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		t := lang.Float
		if v.AsBigFloat().IsInt() {
			t = lang.Int
		}
		prog = lang.Constant(t, lang.Value{Num: f})
	case v.Type() == cty.String:
		prog = c.expr(attr.Expr, env, "an effect argument")
		if prog == nil {
			return nil
		}
	default:
		c.add(errorAt(ptr(rng), "Invalid effect argument", "argument %s of effect %q is %s", arg.Name, e.Name, arg.Type))
		return nil
	}
	if prog.Type != want {
		c.add(errorAt(ptr(rng), "Wrong argument type", "argument %s of effect %q is %s; this is %s", arg.Name, e.Name, arg.Type, prog.Type))
		return nil
	}
	return prog
}

// expr compiles an HCL string attribute as an expression.
func (c *compileCtx) expr(e hcl.Expression, env *lang.Env, what string) *lang.Program {
	v, d := literalValue(e, what)
	if d.HasErrors() || v.Type() != cty.String {
		if !d.HasErrors() {
			d = hcl.Diagnostics{errorAt(ptr(e.Range()), "Expected an expression", "%s is an expression in a string, as \"event.tokens > 0\"", what)}
		}
		for _, x := range d {
			c.add(x)
		}
		return nil
	}
	return c.exprString(v.AsString(), e.Range(), env, what)
}

func (c *compileCtx) exprString(src string, rng hcl.Range, env *lang.Env, what string) *lang.Program {
	if c.common != nil && env != c.common && len(env.Event) > 0 && !c.notCommon[src] {
		if p, ok := c.shared[src]; ok {
			return p
		}
		if readsOwnFact(src) {
			// It cannot compile on the common facts: skip the attempt and
			// the diagnostic it would build.
			c.notCommon[src] = true
			return c.exprString(src, rng, env, what)
		}
		if p, err := lang.Compile(src, c.common); err == nil {
			c.shared[src] = p
			return p
		}
		c.notCommon[src] = true
	}
	prog, err := lang.Compile(src, env)
	if err != nil {
		var le *lang.Error
		if errors.As(err, &le) {
			sub := rng
			if !le.Whole {
				sub = c.p.mapOffset(rng, src, le.Offset, le.Length)
			}
			c.add(errorAt(&sub, "Invalid expression", "%s", le.Msg))
		} else {
			c.add(errorAt(ptr(rng), "Invalid expression", "%v", err))
		}
		return nil
	}
	return prog
}

// commonFacts are the names of the facts every event carries.
var commonFacts = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range (&contract.Event{}).AllFacts() {
		m[f.Name] = true
	}
	return m
}()

// readsOwnFact reports whether src names event.X for a fact X that not
// every event has. It reads the text, not the syntax: a false answer only
// costs a compile attempt, a true one inside a string literal only costs
// sharing the program between events.
func readsOwnFact(src string) bool {
	for i := 0; ; {
		j := strings.Index(src[i:], "event.")
		if j < 0 {
			return false
		}
		start := i + j + len("event.")
		end := start
		for end < len(src) && (src[end] == '_' || src[end] >= 'a' && src[end] <= 'z' || src[end] >= 'A' && src[end] <= 'Z' || src[end] >= '0' && src[end] <= '9') {
			end++
		}
		if end > start && !commonFacts[src[start:end]] && (i+j == 0 || !isIdentByte(src[i+j-1])) {
			return true
		}
		i = end
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// mapOffset finds where a byte offset of an expression string lies in the
// file: the string's text usually appears verbatim inside the attribute's
// range; when escapes or heredoc indentation change it, the line holding
// the offset is looked for instead, and failing that the attribute itself
// is the position.
func (p *Policy) mapOffset(rng hcl.Range, src string, off, length int) hcl.Range {
	file := p.Sources[rng.Filename]
	if file == nil || rng.End.Byte > len(file) || rng.Start.Byte > rng.End.Byte {
		return rng
	}
	within := file[rng.Start.Byte:rng.End.Byte]
	at := -1
	if i := bytes.Index(within, []byte(src)); i >= 0 {
		at = rng.Start.Byte + i + off
	} else {
		lineStart := strings.LastIndexByte(src[:off], '\n') + 1
		lineEnd := strings.IndexByte(src[off:], '\n')
		if lineEnd < 0 {
			lineEnd = len(src)
		} else {
			lineEnd += off
		}
		if line := src[lineStart:lineEnd]; line != "" {
			if i := bytes.Index(within, []byte(line)); i >= 0 {
				at = rng.Start.Byte + i + (off - lineStart)
			}
		}
	}
	if at < 0 {
		return rng
	}
	start := posAt(file, at)
	end := posAt(file, min(at+max(length, 1), len(file)))
	if end.Line != start.Line {
		end = posAt(file, at+1)
	}
	return hcl.Range{Filename: rng.Filename, Start: start, End: end}
}

// posAt converts a byte offset to an hcl.Pos (1-based line and column,
// columns counted in characters).
func posAt(file []byte, off int) hcl.Pos {
	line, col := 1, 1
	for i := 0; i < off && i < len(file); {
		r, w := utf8.DecodeRune(file[i:])
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += w
	}
	return hcl.Pos{Line: line, Column: col, Byte: off}
}
