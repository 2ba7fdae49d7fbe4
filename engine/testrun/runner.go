package testrun

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr/file"
	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
	"github.com/zclconf/go-cty/cty"
)

// Loader loads the policy a test file names (testfile.File.Policy: a
// built-in name, or a file resolved by File.PolicyFile) with the param
// overrides in force for one run. Diagnostics with errors fail the run.
type Loader func(f *testfile.File, overrides []rules.Override) (*rules.Policy, rules.Diagnostics)

// Option configures a Runner.
type Option func(*Runner)

// Filter runs only the runs whose full name, `FILE/RUN` with FILE the test
// file's base name, matches re.
func Filter(re *regexp.Regexp) Option {
	return func(r *Runner) { r.filter = re }
}

// BaseTests lets the coverage of a policy that uses a built-in count the
// built-in's own runs for the rules it inherits unchanged (unless the file
// says inherit_tests = false). find returns a built-in's test file.
func BaseTests(find func(builtin string) (rules.Source, bool)) Option {
	return func(r *Runner) { r.baseTests = find }
}

// Runner runs test files and collects their results in a Report.
type Runner struct {
	load      Loader
	filter    *regexp.Regexp
	pattern   *RunPattern
	report    *Report
	loaded    map[string]*loaded
	baseTests func(string) (rules.Source, bool)
	// baseFired caches, per built-in, the rules its own runs fired.
	baseFired map[string]map[string]bool
}

type loaded struct {
	policy *rules.Policy
	engine *engine.Engine
	diags  rules.Diagnostics
}

// New returns a Runner that loads policies with load.
func New(load Loader, opts ...Option) *Runner {
	r := &Runner{load: load, report: &Report{}, loaded: map[string]*loaded{}}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Report returns the results collected so far.
func (r *Runner) Report() *Report { return r.report }

// Invalid records a test file that could not be decoded: it counts as one
// failure and its diagnostics are reported. sources maps file names to
// their text, for snippets; it may be nil.
func (r *Runner) Invalid(filename string, diags hcl.Diagnostics, sources map[string][]byte) {
	r.report.Results = append(r.report.Results, &Result{
		File:    filename,
		invalid: true,
		Failures: []*Failure{{
			Where: "invalid test file",
			Text:  strings.TrimRight(rules.FormatDiagnostics(sources, errorsOnly(diags)), "\n"),
		}},
	})
}

// RunFile runs every run of f that the filter selects, in order.
func (r *Runner) RunFile(f *testfile.File) {
	for _, run := range f.Runs {
		name := f.BaseName() + "/" + run.Name
		if r.filter != nil && !r.filter.MatchString(name) || r.pattern != nil && !r.pattern.Match(f.BaseName(), run.Name) {
			continue
		}
		r.report.Results = append(r.report.Results, r.runOne(f, run))
	}
}

// policyKey names the policy of a test file for coverage: the built-in
// name, or the policy file's path.
func policyKey(f *testfile.File) string {
	if p := f.PolicyFile(); p != "" {
		return p
	}
	return f.Policy
}

func (r *Runner) loadFor(f *testfile.File, run *testfile.Run) *loaded {
	key := policyKey(f) + "\x00" + f.OverridesKey(run)
	if l, ok := r.loaded[key]; ok {
		return l
	}
	l := &loaded{}
	l.policy, l.diags = r.load(f, f.Overrides(run))
	if l.policy != nil && !l.diags.HasErrors() {
		l.engine = engine.New(l.policy)
		if pr, added := r.report.addPolicy(policyKey(f), l.policy); added {
			r.inherit(pr, l.policy)
		}
	}
	r.loaded[key] = l
	return l
}

// Cover puts a policy that no test file names into the coverage, under
// key: a file that tunes a built-in with no tests of its own is covered by
// the built-in's runs of the rules it inherits unchanged, as when a test
// file names it.
func (r *Runner) Cover(key string, p *rules.Policy) {
	if pr, added := r.report.addPolicy(key, p); added {
		r.inherit(pr, p)
	}
}

// inherit counts, for a policy that uses a built-in, the rules it inherits
// unchanged that the built-in's own runs fire. Those runs are not results
// of this report: they are the built-in's, run against the built-in.
func (r *Runner) inherit(pr *policyRules, p *rules.Policy) {
	c := p.Composition
	if c == nil || !c.InheritTests || r.baseTests == nil {
		return
	}
	src, ok := r.baseTests(c.Base)
	if !ok {
		return
	}
	if r.baseFired == nil {
		r.baseFired = map[string]map[string]bool{}
	}
	fired, ok := r.baseFired[c.Base]
	if !ok {
		fired = map[string]bool{}
		if f, diags := testfile.Parse(src.Bytes, src.Name); !diags.HasErrors() {
			sub := New(r.load)
			sub.RunFile(f)
			for _, spr := range sub.report.policies {
				for name := range spr.fired {
					fired[name] = true
				}
			}
		}
		r.baseFired[c.Base] = fired
	}
	pr.baseTests = src.Name
	pr.inherited = map[string]bool{}
	for _, rule := range p.Rules {
		if !fired[rule.Name] || c.RuleOrigin(rule) != rules.Inherited {
			continue
		}
		if changed := changedParams(p, rule); len(changed) > 0 {
			if pr.retuned == nil {
				pr.retuned = map[string][]string{}
			}
			pr.retuned[rule.Name] = changed
			continue
		}
		pr.inherited[rule.Name] = true
	}
}

// changedParams lists the params an inherited rule reads whose value is
// not the built-in's default: the built-in's runs tested the rule with the
// defaults and say nothing of it under other values (a warning_runway the
// team changed moves the threshold those runs crossed).
func changedParams(p *rules.Policy, r *rules.Rule) []string {
	var out []string
	for _, name := range rules.ParamReads(p, r) {
		x, ok := p.Param(name)
		if !ok || x.Value == cty.NilVal || x.Default == cty.NilVal || !x.Value.RawEquals(x.Default) {
			out = append(out, name)
		}
	}
	return out
}

func (r *Runner) runOne(f *testfile.File, run *testfile.Run) *Result {
	res := &Result{File: f.Filename, Run: run.Name, Policy: policyKey(f), Pos: run.NameRange.Ptr()}
	l := r.loadFor(f, run)
	if l.engine == nil {
		text := "the policy did not load"
		if len(l.diags.Diagnostics) > 0 {
			// Overrides point into the test file: show its lines too.
			sources := map[string][]byte{f.Filename: f.Source}
			for name, src := range l.diags.Sources {
				sources[name] = src
			}
			text = strings.TrimRight(rules.FormatDiagnostics(sources, errorsOnly(l.diags.Diagnostics)), "\n")
		}
		res.fail(&Failure{Where: "policy", Pos: f.PolicyRange.Ptr(), Text: text})
		return res
	}
	ex := &execution{res: res, policy: l.policy, session: l.engine.NewSession()}
	if len(run.State) > 0 {
		if err := ex.session.SetState(testfile.SlotMap(run.State)); err != nil {
			res.fail(&Failure{Where: "start state", Pos: run.State[0].Range.Ptr(),
				Text: "the starting state was rejected: " + err.Error()})
			return res
		}
	}
	for i, ev := range run.Events {
		ex.event(i+1, ev)
	}
	state := ex.session.State()
	if run.Expect != nil && run.Expect.State != nil {
		ex.checkState("final state", "", run.Expect.State, state)
	}
	derived := map[string]any{}
	if ex.hasLast {
		for _, d := range ex.session.Derived(ex.last) {
			derived[d.Name] = d.Value
		}
	}
	params := map[string]any{}
	for _, x := range ex.policy.Params {
		t, v := rules.ParamValue(x.Value)
		params[x.Name] = v.Interface(t)
	}
	env := testfile.AssertEnvWith(ex.decisions, plain(state), derived, params)
	for i, a := range run.Asserts {
		ok, err := a.Eval(env)
		if ok {
			continue
		}
		var lines []string
		if a.ErrorMessage != "" {
			lines = append(lines, a.ErrorMessage)
		}
		lines = append(lines, "condition: "+oneLine(a.Condition))
		if err != nil {
			lines = append(lines, "error: "+exprMessage(err))
		}
		// What the condition read, as --explain shows a guard's.
		for _, r := range a.Reads(env) {
			lines = append(lines, "  "+r)
		}
		res.fail(&Failure{Where: fmt.Sprintf("assert %d", i+1), Pos: a.ConditionRange.Ptr(),
			Text: strings.Join(lines, "\n")})
	}
	for name := range ex.fired {
		r.report.fired(res.Policy, name)
	}
	return res
}

// execution is one run in progress.
type execution struct {
	res       *Result
	policy    *rules.Policy
	session   *engine.Session
	decisions []any
	// last is the last event that parsed, for the derived values asserts
	// see.
	last    engine.Event
	hasLast bool
	fired   map[string]bool
}

func (ex *execution) event(n int, ev *testfile.Event) {
	where := fmt.Sprintf("event %d %s", n, ev.Name)
	var (
		firedRules []string
		effects    []effect
		evErr      error
	)
	parsed, err := engine.ParseEvent(ev.JSON())
	if err == nil {
		ex.last, ex.hasLast = parsed, true
		var d *engine.Decision
		d, err = ex.session.Decide(parsed)
		if err == nil {
			// The decision's slices are reused by the next Decide.
			firedRules = append([]string{}, d.Rules...)
			effects = copyEffects(d.Effects)
		}
	}
	evErr = err
	if ex.fired == nil {
		ex.fired = map[string]bool{}
	}
	for _, name := range firedRules {
		ex.fired[name] = true
	}
	state := ex.session.State()
	ex.decisions = append(ex.decisions, decisionValue(ev.Name, firedRules, effects, evErr, state))

	exp := ev.Expect
	if exp == nil {
		if evErr != nil {
			ex.res.fail(&Failure{Where: where, What: "error", Pos: ev.NameRange.Ptr(),
				Want: "no error", Got: oneLine(evErr.Error())})
		}
		return
	}
	if exp.Error != nil {
		want := fmt.Sprintf("an error containing %q", exp.Error.Substring)
		switch {
		case evErr == nil:
			ex.res.fail(&Failure{Where: where, What: "error", Pos: exp.Error.Range.Ptr(),
				Want: want, Got: "no error; rules " + jsonText(orEmpty(firedRules)) + ", effects " + renderEffects(effects)})
		case !strings.Contains(evErr.Error(), exp.Error.Substring):
			ex.res.fail(&Failure{Where: where, What: "error", Pos: exp.Error.Range.Ptr(),
				Want: want, Got: oneLine(evErr.Error())})
		}
	} else if evErr != nil {
		ex.res.fail(&Failure{Where: where, What: "error", Pos: ev.NameRange.Ptr(),
			Want: "no error", Got: oneLine(evErr.Error())})
		return
	}
	if exp.Rules != nil && !equalStrings(exp.Rules.Names, firedRules) {
		f := &Failure{Where: where, What: "rules", Pos: exp.Rules.Range.Ptr(),
			Want: jsonText(orEmpty(exp.Rules.Names)), Got: jsonText(orEmpty(firedRules))}
		if unknown := ex.unknownRules(exp.Rules.Names); len(unknown) > 0 {
			f.Text = fmt.Sprintf("policy %q has no rule %s", ex.policy.Name, strings.Join(quoteAll(unknown), ", "))
		}
		ex.res.fail(f)
	}
	if exp.Effects != nil && !matchExact(exp.Effects.Effects, effects) {
		ex.res.fail(&Failure{Where: where, What: "effects", Pos: exp.Effects.Range.Ptr(),
			Want: renderSpecs(exp.Effects.Effects), Got: renderEffects(effects)})
	}
	if exp.EffectsContain != nil {
		if missing, ok := matchContain(exp.EffectsContain.Effects, effects); !ok {
			ex.res.fail(&Failure{Where: where, What: "effects_contain", Pos: exp.EffectsContain.Range.Ptr(),
				Want: renderSpecs(exp.EffectsContain.Effects), Got: renderEffects(effects),
				Text: "missing, in order: " + renderSpecs(missing)})
		}
	}
	if exp.State != nil {
		ex.checkState(where, "state", exp.State, state)
	}
}

func (ex *execution) checkState(where, what string, want *testfile.StateExpect, got map[string]any) {
	var wantParts, gotParts []string
	differ := false
	for _, s := range want.Slots {
		wantParts = append(wantParts, jsonText(s.Name)+":"+jsonText(s.Value))
		g, ok := got[s.Name]
		if !ok {
			differ = true
			continue
		}
		gotParts = append(gotParts, jsonText(s.Name)+":"+jsonText(g))
		if !valuesEqual(s.Value, g) {
			differ = true
		}
	}
	if !differ {
		return
	}
	f := &Failure{Where: where, What: what, Pos: want.Range.Ptr(),
		Want: "{" + strings.Join(wantParts, ",") + "}", Got: "{" + strings.Join(gotParts, ",") + "}"}
	var unknown []string
	for _, s := range want.Slots {
		if _, ok := got[s.Name]; !ok {
			unknown = append(unknown, s.Name)
		}
	}
	var texts []string
	if len(unknown) > 0 {
		texts = append(texts, fmt.Sprintf("policy %q has no slot %s", ex.policy.Name, strings.Join(quoteAll(unknown), ", ")))
	}
	// A wanted value an enum slot cannot hold is a mistake of the test,
	// not a difference of the policy's: say so.
	for _, w := range want.Slots {
		slot, ok := ex.policy.Slot(w.Name)
		text, isText := w.Value.(string)
		if !ok || len(slot.Enum) == 0 || !isText || slices.Contains(slot.Enum, text) {
			continue
		}
		texts = append(texts, fmt.Sprintf("%q is not a value of slot %s (%s)%s", text, w.Name, strings.Join(quoteAll(slot.Enum), ", "), lang.Suggest(text, slot.Enum)))
	}
	f.Text = strings.Join(texts, "; ")
	ex.res.fail(f)
}

func (ex *execution) unknownRules(names []string) []string {
	known := map[string]bool{}
	for _, r := range ex.policy.Rules {
		known[r.Name] = true
	}
	var out []string
	for _, n := range names {
		if !known[n] {
			out = append(out, n)
		}
	}
	return out
}

// decisionValue is one element of `decisions` in assert conditions.
func decisionValue(event string, fired []string, effects []effect, err error, state map[string]any) map[string]any {
	rs := make([]any, len(fired))
	for i, r := range fired {
		rs[i] = r
	}
	es := make([]any, len(effects))
	for i, e := range effects {
		m := map[string]any{"effect": e.name}
		for _, a := range e.args {
			m[a.name] = a.value
		}
		es[i] = m
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	return map[string]any{"event": event, "rules": rs, "effects": es, "error": errText, "state": plain(state)}
}

// plain copies a state map so later events cannot change it.
func plain(state map[string]any) map[string]any {
	out := make(map[string]any, len(state))
	for k, v := range state {
		out[k] = v
	}
	return out
}

func errorsOnly(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out = append(out, d)
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// exprMessage is an expr runtime error without its snippet.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fmt.Sprintf("%s (at column %d of the condition)", fe.Message, fe.Column+1)
	}
	return oneLine(err.Error())
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
