package verify

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// evaluator evaluates expression sources with expr-lang itself (not the
// compiled closures), over a map environment: the facts (at their
// defaults unless given), a state, the params in force, derived values
// computed in order. Programs are compiled once.
type evaluator struct {
	p        *rules.Policy
	initial  []lang.Value
	params   map[string]any
	defaults map[string]any
	derived  []*vm.Program
	progs    map[string]*vm.Program
	// base are the values each int fact takes when another fact's
	// threshold is searched: its default and the values a verify block
	// declares for it (every declared context window, say).
	base map[string][]float64
}

func newEvaluator(p *rules.Policy, initial []lang.Value) *evaluator {
	e := &evaluator{p: p, initial: initial, params: map[string]any{}, defaults: map[string]any{}, progs: map[string]*vm.Program{}, base: map[string][]float64{}}
	for name, f := range factTypes() {
		switch d := f.Default.(type) {
		case int64:
			e.defaults[name] = int(d)
			e.base[name] = []float64{float64(d)}
		default:
			e.defaults[name] = d
		}
	}
	if v := p.Verify; v != nil {
		for k, vals := range v.Domains {
			if strings.Contains(k, ".") {
				continue
			}
			for _, x := range vals {
				if f, ok := toFloat(x); ok && !slices.Contains(e.base[k], f) {
					e.base[k] = append(e.base[k], f)
				}
			}
		}
	}
	for _, x := range p.Params {
		t, v := rules.ParamValue(x.Value)
		e.params[x.Name] = v.Interface(t)
	}
	for _, d := range p.Derived {
		var prog *vm.Program
		if d.Prog != nil {
			prog, _ = expr.Compile(d.Prog.Source)
		}
		e.derived = append(e.derived, prog)
	}
	return e
}

func (e *evaluator) compile(src string) *vm.Program {
	if prog, ok := e.progs[src]; ok {
		return prog
	}
	prog, _ := expr.Compile(src)
	e.progs[src] = prog
	return prog
}

// stateMap is a state as expressions see it.
func (e *evaluator) stateMap(vals []lang.Value) map[string]any {
	state := map[string]any{}
	for i, s := range e.p.Slots {
		v := vals[i]
		switch {
		case s.IsEnum():
			state[s.Name] = s.Enum[int(v.Num)]
		case s.Type == lang.Int:
			state[s.Name] = int(v.Num)
		default:
			state[s.Name] = v.Interface(s.Type)
		}
	}
	return state
}

// env is the environment with the given int facts set.
func (e *evaluator) env(state map[string]any, facts map[string]float64) map[string]any {
	fs := maps.Clone(e.defaults)
	for k, v := range facts {
		fs[k] = int(v)
	}
	env := map[string]any{
		"event": fs, "state": state, "param": e.params,
		"field": func(s string, i int) string {
			fs := strings.Fields(s)
			if i < 0 || i >= len(fs) {
				return ""
			}
			return fs[i]
		},
		"nfields": func(s string) int { return len(strings.Fields(s)) },
	}
	for i, d := range e.p.Derived {
		if e.derived[i] == nil {
			continue
		}
		if v, err := expr.Run(e.derived[i], env); err == nil {
			env[d.Name] = v
		}
	}
	return env
}

// thresholds finds where comparison c changes truth as fact moves: the
// values on each side of each such point, for every combination of the
// base values of the other int facts the comparison reads, in the given
// state.
func (e *evaluator) thresholds(c *ast.BinaryNode, fact string, a *analyzer, state map[string]any) []float64 {
	cd, ok := e.thresholdsBy(c, fact, a, state)
	if !ok {
		return nil
	}
	var out []float64
	for _, k := range slices.Sorted(maps.Keys(cd.by)) {
		out = append(out, cd.by[k]...)
	}
	return out
}

// condDomain holds the thresholds of one comparison for each combination
// of the other int facts it reads that take several values (each declared
// context window): a token count that is a threshold at one window is not
// tried at another.
type condDomain struct {
	others []string
	by     map[string][]float64 // comboKey -> values on each side
}

// comboKey names the values of facts in one combination.
func comboKey(others []string, value func(string) float64) string {
	var b strings.Builder
	for _, f := range others {
		b.WriteString(lang.FormatNum(value(f)))
		b.WriteByte(',')
	}
	return b.String()
}

// thresholdsBy is thresholds, per combination of the other facts.
func (e *evaluator) thresholdsBy(c *ast.BinaryNode, fact string, a *analyzer, state map[string]any) (condDomain, bool) {
	src := c.String()
	x := a.info(src)
	// The first int fact the comparison reads, in contract order (tokens
	// before context_window), varies; the others take their base values.
	var first string
	for _, f := range contract.CommonFacts {
		if f.Type == contract.Int && f.Name != factNow && slices.Contains(x.facts, f.Name) {
			first = f.Name
			break
		}
	}
	if first == "" {
		for _, f := range x.facts {
			if t := factTypes()[f]; t.Type == contract.Int && f != factNow {
				first = f
				break
			}
		}
	}
	if first != fact {
		return condDomain{}, false
	}
	prog := e.compile(src)
	if prog == nil {
		return condDomain{}, false
	}
	// The other int facts it reads, each over its base values.
	var others, varying []string
	for _, f := range x.facts {
		if t := factTypes()[f]; t.Type == contract.Int && f != fact && f != factNow {
			others = append(others, f)
			if len(e.base[f]) > 1 {
				varying = append(varying, f)
			}
		}
	}
	cd := condDomain{others: varying, by: map[string][]float64{}}
	combo := map[string]float64{}
	n := 0
	var each func(k int)
	each = func(k int) {
		if n > 64 {
			return
		}
		if k < len(others) {
			for _, v := range e.base[others[k]] {
				combo[others[k]] = v
				each(k + 1)
			}
			return
		}
		n++
		key := comboKey(varying, func(f string) float64 { return combo[f] })
		cd.by[key] = append(cd.by[key], e.crossing(c, prog, fact, combo, state)...)
	}
	each(0)
	return cd, true
}

// crossing finds, with the other facts at combo, where c changes truth as
// fact goes from 0 to maxProbe.
func (e *evaluator) crossing(c *ast.BinaryNode, prog *vm.Program, fact string, combo map[string]float64, state map[string]any) []float64 {
	facts := maps.Clone(combo)
	at := func(v float64) (bool, bool) {
		facts[fact] = v
		out, err := expr.Run(prog, e.env(state, facts))
		b, ok := out.(bool)
		return b, err == nil && ok
	}
	lo, okLo := at(0)
	hi, okHi := at(maxProbe)
	if !okLo || !okHi {
		return nil
	}
	if lo == hi {
		// An equality holds at one point only: find it on the other side.
		if c.Operator == "==" || c.Operator == "!=" {
			facts[fact] = 0
			for _, side := range []ast.Node{c.Left, c.Right} {
				if _, isFact := eventFact(side); isFact {
					continue
				}
				sp := e.compile(side.String())
				if sp == nil {
					continue
				}
				out, err := expr.Run(sp, e.env(state, facts))
				if err != nil {
					continue
				}
				if v, ok := toFloat(out); ok {
					return []float64{v - 1, v, v + 1}
				}
			}
		}
		return nil
	}
	l, h := 0.0, float64(maxProbe)
	for h-l > 1 {
		m := math.Floor((l + h) / 2)
		if b, ok := at(m); ok && b == hi {
			h = m
		} else {
			l = m
		}
	}
	return []float64{l, h}
}

// dynamicKey is the values of the slots fact's moving thresholds read.
func (d *domains) dynamicKey(fact string, vals []lang.Value) string {
	var b strings.Builder
	b.WriteString(fact)
	for _, dc := range d.dynamic[fact] {
		for _, i := range dc.slots {
			b.WriteByte('|')
			b.WriteString(lang.FormatNum(vals[i].Num))
			b.WriteString(vals[i].Str)
		}
	}
	return b.String()
}

// dyn finds (once per slot values) the thresholds of fact's moving
// comparisons in the state vals.
func (d *domains) dyn(fact string, vals []lang.Value) *dynEntry {
	key := d.dynamicKey(fact, vals)
	if e, ok := d.dynCache[key]; ok {
		return e
	}
	e := &dynEntry{free: map[float64]bool{}}
	state := d.ev.stateMap(vals)
	for _, dc := range d.dynamic[fact] {
		cd, ok := d.ev.thresholdsBy(dc.c, fact, d.an, state)
		if !ok {
			continue
		}
		for _, vs := range cd.by {
			e.all = append(e.all, vs...)
		}
		if len(cd.others) > 0 {
			e.cond = append(e.cond, cd)
		} else {
			for _, v := range cd.by[""] {
				e.free[v] = true
			}
		}
	}
	if len(d.dynCache) < 1<<14 {
		d.dynCache[key] = e
	}
	return e
}

// withDynamic adds to base the thresholds of fact's moving comparisons in
// the state vals.
func (d *domains) withDynamic(fact string, base []any, vals []lang.Value) []any {
	if len(d.dynamic[fact]) == 0 {
		return base
	}
	extra := d.dyn(fact, vals).all
	set := map[float64]bool{}
	for _, v := range base {
		if f, ok := toFloat(v); ok {
			set[f] = true
		}
	}
	n := len(set)
	for _, v := range extra {
		set[v] = true
	}
	if len(set) == n {
		return base
	}
	return sortedNums(set)
}

// interesting reports whether value v of int fact is worth trying on an
// event whose other facts are given by value: it is a threshold for every
// event, or for this event's combination of the facts a comparison reads.
func (d *domains) interesting(fact string, v float64, value func(string) float64, vals []lang.Value) bool {
	if len(d.cond[fact]) == 0 && len(d.dynamic[fact]) == 0 {
		return true
	}
	if d.free[fact][v] {
		return true
	}
	conds := d.cond[fact]
	if len(d.dynamic[fact]) > 0 {
		e := d.dyn(fact, vals)
		if e.free[v] {
			return true
		}
		conds = append(slices.Clip(conds), e.cond...)
	}
	for _, cd := range conds {
		if slices.Contains(cd.by[comboKey(cd.others, value)], v) {
			return true
		}
	}
	return false
}

// othersOf names the facts whose values decide, in the state vals,
// whether a value of fact is interesting.
func (d *domains) othersOf(fact string, vals []lang.Value) []string {
	conds := d.cond[fact]
	if len(d.dynamic[fact]) > 0 {
		conds = append(slices.Clip(conds), d.dyn(fact, vals).cond...)
	}
	var out []string
	for _, cd := range conds {
		for _, o := range cd.others {
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}
