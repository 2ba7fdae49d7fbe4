package engine

import (
	"slices"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// litIndex maps the value of one string fact to a bucket of a group.
type litIndex struct {
	fact int
	// enum facts hold their index: byCode[index] is the bucket; codes
	// says the index is read from the event's packed codes.
	codes  bool
	byCode []int32
	// other string facts: up to linearMax values are compared in turn,
	// more are looked up in a map; other is the bucket of any value no
	// rule names.
	strs  []string
	ids   []int32
	byStr map[string]int32
	other int32
}

// linearMax is how many literal values are compared one by one before a
// map lookup is cheaper.
const linearMax = 8

// find returns the bucket for an event's facts.
func (x *litIndex) find(ev *Event) int32 {
	if x.codes {
		return x.byCode[ev.packed.Codes>>uint(4*x.fact)&15]
	}
	v := &ev.facts[x.fact]
	if x.byCode != nil {
		return x.byCode[int(v.Num)]
	}
	if x.byStr != nil {
		if id, ok := x.byStr[v.Str]; ok {
			return id
		}
		return x.other
	}
	for i, s := range x.strs {
		if s == v.Str {
			return x.ids[i]
		}
	}
	return x.other
}

// firstLit returns the literal equality a guard starts with, if any. Only
// the first conjunct qualifies: dispatching on a later one would skip
// conjuncts before it, and with them errors they may raise.
func firstLit(w *lang.Program) *lang.Lit {
	if len(w.Parts) > 0 {
		return w.Parts[0].Lit
	}
	return w.Lit
}

// conjuncts returns a guard's top-level conjuncts (the guard itself when
// it is not an &&), or nil for no guard.
func conjuncts(w *lang.Program) []*lang.Program {
	switch {
	case w == nil:
		return nil
	case len(w.Parts) > 0:
		return w.Parts
	}
	return []*lang.Program{w}
}

// and is the conjunction of parts, in order, or nil when there are none.
// Neighbouring parts that only test bool facts are fused into one mask
// test; only neighbours, so every other part still runs exactly when it
// did (a part that can fail is never skipped or added).
//
// A part that is itself an && chain (a derived value computed in place)
// runs as its steps, so that `warning_due && …` is a mask test and a
// comparison in this closure, not a call that makes them.
func and(parts []*lang.Program) func(*lang.Frame) bool {
	var steps []lang.Step
	for _, p := range parts {
		if len(p.Steps) > 0 {
			steps = append(steps, p.Steps...)
		} else {
			steps = append(steps, lang.Step{B: p.B, Bits: p.Bits})
		}
	}
	var fs []func(*lang.Frame) bool
	var first *lang.BitTest // the first step's mask, when it is one
	for i := 0; i < len(steps); i++ {
		p := steps[i]
		if p.Bits == nil {
			fs = append(fs, p.B)
			continue
		}
		t := *p.Bits
		for i+1 < len(steps) && steps[i+1].Bits != nil && steps[i+1].Bits.Mask&t.Mask == 0 {
			i++
			t.Mask |= steps[i].Bits.Mask
			t.Want |= steps[i].Bits.Want
		}
		if len(fs) == 0 {
			first = &t
		}
		fs = append(fs, bitTest(t))
	}
	// A guard that starts with a mask test (`event.enabled && …`) tests it
	// in place, not by a call.
	if first != nil && len(fs) == 2 {
		m, w, b := first.Mask, first.Want, fs[1]
		return func(f *lang.Frame) bool { return f.Bits&m == w && b(f) }
	}
	if first != nil && len(fs) == 3 {
		m, w, b, c := first.Mask, first.Want, fs[1], fs[2]
		return func(f *lang.Frame) bool { return f.Bits&m == w && b(f) && c(f) }
	}
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	case 2:
		a, b := fs[0], fs[1]
		return func(f *lang.Frame) bool { return a(f) && b(f) }
	case 3:
		a, b, c := fs[0], fs[1], fs[2]
		return func(f *lang.Frame) bool { return a(f) && b(f) && c(f) }
	}
	return func(f *lang.Frame) bool {
		for _, p := range fs {
			if !p(f) {
				return false
			}
		}
		return true
	}
}

// bitsOf is the conjunction of parts as one mask test, or false when
// some part is not a test of bool facts or two test the same fact.
func bitsOf(parts []*lang.Program) (lang.BitTest, bool) {
	if len(parts) == 0 {
		return lang.BitTest{}, false
	}
	var t lang.BitTest
	for _, p := range parts {
		if p.Bits == nil || p.Bits.Mask&t.Mask != 0 {
			return lang.BitTest{}, false
		}
		t.Mask |= p.Bits.Mask
		t.Want |= p.Bits.Want
	}
	return t, true
}

func bitTest(t lang.BitTest) func(*lang.Frame) bool {
	m, w := t.Mask, t.Want
	return func(f *lang.Frame) bool { return f.Bits&m == w }
}

// hoist tests once per bucket a first conjunct that every rule of the
// bucket starts its guard with (`event.enabled && …` in every rule of a
// group): the rules keep the rest. It is tested only when some rule is a
// candidate, and first, exactly where the first candidate would have tested
// it, so errors and results are those of testing it rule by rule.
func (b *bucket) hoist() {
	if len(b.rules) < 2 {
		return
	}
	first := ""
	for _, r := range b.rules {
		if len(r.parts) == 0 || (first != "" && r.parts[0].Source != first) {
			return
		}
		first = r.parts[0].Source
	}
	b.preParts = b.rules[0].parts[:1]
	b.pre = and(b.preParts)
	for i, r := range b.rules {
		c := *r
		c.parts = r.parts[1:]
		c.when = and(c.parts)
		b.rules[i] = &c
	}
}

// dispatch chooses the fact the group's rules most often start their
// guard by comparing with a literal, buckets the rules by its value, and
// builds each bucket's state index.
//
// Every bucket holds the rules that do not test the fact, so the buckets
// cost the values times those rules: past the budget the group keeps one
// bucket.
func (g *group) dispatch(p *rules.Policy, plan *rules.Plan, budget *buildBudget) {
	count := map[int]int{}
	best, bestN := -1, 1
	for _, r := range g.rules {
		if r.lit == nil {
			continue
		}
		count[r.lit.Fact]++
		if n := count[r.lit.Fact]; n > bestN || (n == bestN && r.lit.Fact < best) {
			best, bestN = r.lit.Fact, n
		}
	}
	// Bucket ids follow the values in order of first appearance; the
	// bucket of unnamed values comes last.
	ids := map[string]int32{}
	var values []string
	shared := 0
	for _, r := range g.rules {
		if r.lit != nil && r.lit.Fact == best {
			if _, ok := ids[r.lit.Str]; !ok {
				ids[r.lit.Str] = int32(len(values))
				values = append(values, r.lit.Str)
			}
		} else {
			shared++
		}
	}
	if best < 0 || !budget.take(len(g.rules)-shared+(len(values)+1)*shared) {
		budget.spend(len(g.rules))
		b := bucket{rules: slices.Clone(g.rules)}
		b.hoist()
		b.index(p, budget)
		g.buckets = []bucket{b}
		return
	}
	x := &litIndex{fact: best}
	enum := plan.Facts[best].Enum
	x.other = int32(len(values))
	g.buckets = make([]bucket, len(values)+1)
	for _, r := range g.rules {
		if r.lit != nil && r.lit.Fact == best {
			r.parts = r.parts[1:]
			r.when = and(r.parts)
			id := ids[r.lit.Str]
			g.buckets[id].rules = append(g.buckets[id].rules, r)
			continue
		}
		for i := range g.buckets {
			g.buckets[i].rules = append(g.buckets[i].rules, r)
		}
	}
	switch {
	case len(enum) > 0:
		x.byCode = make([]int32, len(enum))
		x.codes = best < lang.MaxCodeFacts && len(enum) <= lang.MaxCodeEnum
		for i, v := range enum {
			if id, ok := ids[v]; ok {
				x.byCode[i] = id
			} else {
				x.byCode[i] = x.other
			}
		}
	case len(values) > linearMax:
		x.byStr = ids
	default:
		x.strs = values
		for _, v := range values {
			x.ids = append(x.ids, ids[v])
		}
	}
	g.lit = x
	for i := range g.buckets {
		g.buckets[i].hoist()
		g.buckets[i].index(p, budget)
	}
}
