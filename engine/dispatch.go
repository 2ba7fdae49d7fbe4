package engine

import (
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// litIndex maps the value of one string fact to a bucket of a group.
type litIndex struct {
	fact int
	// enum facts hold their index: byCode[index] is the bucket.
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
func (x *litIndex) find(facts []lang.Value) int32 {
	v := &facts[x.fact]
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

// rest is the guard without its first conjunct, or nil when nothing is
// left.
func rest(w *lang.Program) func(*lang.Frame) bool {
	if len(w.Parts) < 2 {
		return nil
	}
	parts := make([]func(*lang.Frame) bool, len(w.Parts)-1)
	for i, p := range w.Parts[1:] {
		parts[i] = p.B
	}
	switch len(parts) {
	case 1:
		return parts[0]
	case 2:
		a, b := parts[0], parts[1]
		return func(f *lang.Frame) bool { return a(f) && b(f) }
	case 3:
		a, b, c := parts[0], parts[1], parts[2]
		return func(f *lang.Frame) bool { return a(f) && b(f) && c(f) }
	}
	return func(f *lang.Frame) bool {
		for _, p := range parts {
			if !p(f) {
				return false
			}
		}
		return true
	}
}

// dispatch chooses the fact the group's rules most often start their
// guard by comparing with a literal, buckets the rules by its value, and
// builds each bucket's state index.
func (g *group) dispatch(p *rules.Policy, plan *rules.Plan) {
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
	if best < 0 {
		b := bucket{rules: g.rules}
		b.index(p)
		g.buckets = []bucket{b}
		return
	}
	x := &litIndex{fact: best}
	enum := plan.Facts[best].Enum
	// Bucket ids follow the values in order of first appearance; the
	// bucket of unnamed values comes last.
	ids := map[string]int32{}
	var values []string
	for _, r := range g.rules {
		if r.lit != nil && r.lit.Fact == best {
			if _, ok := ids[r.lit.Str]; !ok {
				ids[r.lit.Str] = int32(len(values))
				values = append(values, r.lit.Str)
			}
		}
	}
	x.other = int32(len(values))
	g.buckets = make([]bucket, len(values)+1)
	for _, r := range g.rules {
		if r.lit != nil && r.lit.Fact == best {
			r.when = rest(r.c.When)
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
		g.buckets[i].index(p)
	}
}
