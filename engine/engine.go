package engine

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Engine is a policy prepared for running. Sessions share it: it is
// immutable but for the plans of a policy loaded rules.CompileOnUse,
// which it builds, once, when an event first needs one.
type Engine struct {
	policy  *rules.Policy
	plans   []plan // per contract event
	initial []lang.Value
	// building serialises the building of plans on first use.
	building sync.Mutex
}

// plan is what one event kind runs, per group.
type plan struct {
	groups []group
	// built is set once groups are complete, and read before them: a
	// decision builds the plan first if it is not (see buildOnUse).
	built atomic.Bool
	// rules holds every rule a decision on the event reaches, in group
	// order (see pack).
	rules []rule
	// table, when set, lists the groups to run and their candidates for
	// each state key, which mixes the slots key0 and keys (see tabulate);
	// key0 is -1 when the plan reads no slot.
	table [][]step
	key0  int
	keys  []stateKey
	// spent is the entries of the build budget its indexes hold.
	spent int
}

type group struct {
	name  string
	rules []*rule // every candidate, in file order (explanations)
	// lit, when set, dispatches on one string fact that the rules' guards
	// compare with literals first (`event.name == 'wipe_memory' && …`):
	// the fact's value picks a bucket holding, in file order, the rules
	// for that value and the rules that do not test the fact. A decision
	// then neither scans the other values' rules nor tests the equality.
	lit     *litIndex
	buckets []bucket // one bucket when lit is nil
}

// bucket is a list of candidate rules with its state index.
type bucket struct {
	// byState indexes the rules by the values of the enum slots their
	// `from` clauses read: byState[key] lists, in file order, the rules
	// whose from matches, where key mixes the slots' indexes by stride.
	// A decision then checks no from clause at all. It is nil when the
	// slots have too many combinations to tabulate. key0 is the first
	// key's slot (its stride is 1), keys the others.
	byState [][]*rule
	key0    int
	keys    []stateKey
	rules   []*rule
	// unindexed is set when some rule reads a slot but the build budget
	// left no room for the state index: a decision checks from clauses.
	unindexed bool
	// pre, when set, is the first conjunct of every rule's guard, tested
	// once for the bucket (see hoist); preBits is it as a mask test when
	// hasPreBits. preParts is the conjunct pre tests.
	pre        func(*lang.Frame) bool
	preBits    lang.BitTest
	hasPreBits bool
	preParts   []*lang.Program
}

type stateKey struct {
	slot, stride int
}

// maxStateTable bounds a bucket's state index.
const maxStateTable = 4096

// rule is a compiled rule with the effects that need no evaluation built
// once, so emitting them costs nothing.
type rule struct {
	// The fields a decision reads come first, so that testing and firing
	// a rule read its first 144 bytes, and a mask test reads nothing
	// behind a pointer (the events of a long stream evict the policy's
	// data between uses; see pack).
	//
	// bits, when hasBits, is when as one mask test (every conjunct tests
	// bool facts), which run tests in place instead of calling when.
	bits    lang.BitTest
	hasBits bool
	// plain is set when the rule's sets are all constants and its effects
	// all static, so firing it evaluates nothing (see runSteps).
	plain bool
	// when is the guard left to test once the rule's bucket is chosen:
	// the whole guard, or the conjuncts after the literal the group
	// dispatches on; nil when nothing is left.
	when func(*lang.Frame) bool
	name string
	// nums, fixed and sets are the rule's targets and assignments laid
	// flat, so a decision follows no pointers to apply them. The writes
	// known before any event are applied from the rule: nums are the
	// targets (an enum slot holds its index in Num) and the sets of
	// finite constant numbers, fixed the sets of other constants. sets
	// are the others, evaluated when the rule fires.
	nums  []target
	fixed []write
	sets  []set
	// statics are the effects when every one is static (appended in one
	// copy), else nil.
	statics []Effect
	// from is the rule's state match, read when its bucket has no state
	// index.
	from []fromCheck

	c       *rules.CompiledRule
	parts   []*lang.Program // the conjuncts when is made of
	lit     *lang.Lit
	effects []effect
	// packed is 1 + the rule's index in its plan's rules once pack has
	// placed it there, 0 before.
	packed int
}

// target is a number written to a slot: a `to`'s enum index, or a
// constant set.
type target struct {
	slot int32
	num  float64
}

type set struct {
	slot int32
	typ  lang.Type
	name string
	prog *lang.Program
}

type fromCheck struct {
	slot int
	mask uint64
}

type effect struct {
	c      *rules.CompiledEffect
	static Effect // set when c.Static
}

// New prepares a compiled policy for running. The plans of a policy
// loaded rules.CompileOnUse are left to the first event of each kind.
func New(p *rules.Policy) *Engine {
	e := &Engine{policy: p, plans: make([]plan, len(p.Plans))}
	for _, s := range p.Slots {
		e.initial = append(e.initial, s.Initial)
	}
	if p.CompilesOnUse() {
		return e
	}
	for k := range e.plans {
		e.build(k)
	}
	return e
}

// buildOnUse builds the plan of event kind k unless another decision
// has. A decision calls it when the plan's built is not set, which it
// reads in place: a load and a branch, where a call that returned the
// groups and an error, too large to inline, was about 2% of Decide
// (RatioGenerated, interleaved with the code before).
func (e *Engine) buildOnUse(k int) error {
	e.building.Lock()
	defer e.building.Unlock()
	if !e.plans[k].built.Load() {
		if err := e.policy.CompilePlan(k); err != nil {
			return err
		}
		e.build(k)
	}
	return nil
}

// build prepares the plan of event kind k from its compiled rules.
func (e *Engine) build(k int) {
	p, pl := e.policy, &e.plans[k]
	rp := p.Plans[k]
	var groups []group
	n := 0
	for _, pg := range rp.Groups {
		n += len(pg.Rules)
	}
	budget := newBuildBudget(n)
	for _, pg := range rp.Groups {
		g := group{name: pg.Group.Name}
		for _, cr := range pg.Rules {
			g.rules = append(g.rules, newRule(cr))
		}
		if len(g.rules) == 0 {
			continue // a group with nothing to say on this event costs nothing
		}
		g.dispatch(p, rp, &budget)
		for i := range g.buckets {
			b := &g.buckets[i]
			b.preBits, b.hasPreBits = bitsOf(b.preParts)
			for _, r := range b.rules {
				if r.when != nil {
					r.bits, r.hasBits = bitsOf(r.parts)
				}
			}
		}
		groups = append(groups, g)
	}
	pl.groups = groups
	pl.spent = newBuildBudget(n).left - budget.left
	pl.pack()
	pl.tabulate(p.Slots)
	pl.built.Store(true)
}

// newRule prepares one compiled rule.
func newRule(cr *rules.CompiledRule) *rule {
	r := &rule{c: cr, name: cr.Rule.Name}
	if cr.When != nil {
		r.parts = conjuncts(cr.When)
		r.when = and(r.parts)
		r.lit = firstLit(cr.When)
	}
	for _, m := range cr.From {
		r.from = append(r.from, fromCheck{slot: m.Slot.Index, mask: m.Mask})
	}
	for _, t := range cr.To {
		r.nums = append(r.nums, target{slot: int32(t.Slot.Index), num: t.Value.Num})
	}
	for _, a := range cr.Set {
		if w, ok := fixedWrite(a); ok {
			if w.typ == lang.Int || w.typ == lang.Float {
				r.nums = append(r.nums, target{slot: w.slot, num: w.num})
			} else {
				r.fixed = append(r.fixed, w)
			}
			continue
		}
		r.sets = append(r.sets, set{slot: int32(a.Slot.Index), typ: a.Slot.Type, name: a.Slot.Name, prog: a.Prog})
	}
	for i := range cr.Effects {
		ce := &cr.Effects[i]
		ef := effect{c: ce}
		if ce.Static {
			ef.static = Effect{Name: ce.Name}
			for _, a := range ce.Args {
				ef.static.Args = append(ef.static.Args, Arg{Name: a.Name, Value: a.Prog.Const.Interface(a.Prog.Type)})
			}
		}
		r.effects = append(r.effects, ef)
	}
	r.statics = staticEffects(r.effects)
	r.plain = len(r.sets) == 0 && r.statics != nil
	return r
}

// pack moves every rule a decision on the plan's event reaches into one
// array, in group order, so that the rules of a group share cache lines
// instead of lying wherever they were allocated: between two events of a
// kind, the facts of the events in between evict the policy's data, and a
// rule read again then costs a miss for each line it spans.
func (pl *plan) pack() {
	var order []*rule
	pl.eachBucket(func(b *bucket) {
		for _, r := range b.rules {
			if r.packed == 0 {
				order = append(order, r)
				r.packed = len(order)
			}
		}
	})
	arena := make([]rule, len(order))
	for i, r := range order {
		arena[i] = *r
	}
	pl.rules = arena
	// A state index lists rules of its bucket only, so every rule it
	// names has its place.
	moved := func(rs []*rule) {
		for i, r := range rs {
			rs[i] = &arena[r.packed-1]
		}
	}
	pl.eachBucket(func(b *bucket) {
		for _, rs := range b.byState {
			moved(rs)
		}
		moved(b.rules)
	})
}

// eachBucket calls visit on every bucket of the plan, in group order.
func (pl *plan) eachBucket(visit func(*bucket)) {
	for gi := range pl.groups {
		for bi := range pl.groups[gi].buckets {
			visit(&pl.groups[gi].buckets[bi])
		}
	}
}

// fixedWrite is the write of a set whose value is a constant. A constant
// number that is not finite is left to fire, which refuses it.
func fixedWrite(a rules.Assign) (write, bool) {
	k := a.Prog.Const
	if k == nil {
		return write{}, false
	}
	w := write{slot: int32(a.Slot.Index), typ: a.Slot.Type}
	switch a.Slot.Type {
	case lang.Int, lang.Float:
		if math.IsNaN(k.Num) || math.IsInf(k.Num, 0) {
			return write{}, false
		}
		w.num = k.Num
	case lang.String:
		w.str = k.Str
	case lang.Bool:
		w.b = k.Bool
	default:
		return write{}, false
	}
	return w, true
}

func staticEffects(effs []effect) []Effect {
	out := []Effect{}
	for _, ef := range effs {
		if !ef.c.Static {
			return nil
		}
		out = append(out, ef.static)
	}
	return out
}

// Policy is the policy the engine runs.
func (e *Engine) Policy() *rules.Policy { return e.policy }

// NewSession starts a session in the policy's initial state.
func (e *Engine) NewSession() *Session {
	s := &Session{eng: e, state: make([]lang.Value, len(e.initial))}
	s.frame.Memo = make([]lang.Memo, len(e.policy.Derived))
	copy(s.state, e.initial)
	return s
}

// index builds the bucket's state index, if the budget has room for
// it: a list per key, each holding the bucket's rules whose from
// matches. Its size is counted before anything is built, in time linear
// in the rules, and each rule is then written only under the keys it
// matches, so building it costs what it holds.
func (b *bucket) index(p *rules.Policy, budget *buildBudget) {
	seen := map[int]bool{}
	size := 1
	for _, r := range b.rules {
		for _, f := range r.from {
			if seen[f.slot] {
				continue
			}
			seen[f.slot] = true
			n := len(p.Slots[f.slot].Enum)
			b.keys = append(b.keys, stateKey{slot: f.slot, stride: size})
			size *= n
			if size > maxStateTable {
				b.keys, b.unindexed = nil, true
				return
			}
		}
	}
	if len(b.keys) == 0 {
		return
	}
	// allowed[i] lists the codes of key slot i a rule's from allows.
	allowed := make([][]int, len(b.keys))
	ruleAllowed := func(r *rule) int {
		keys := 1
		for i, k := range b.keys {
			n := len(p.Slots[k.slot].Enum)
			mask := uint64(1)<<uint(n) - 1
			for _, f := range r.from {
				if f.slot == k.slot {
					mask &= f.mask
				}
			}
			allowed[i] = allowed[i][:0]
			for c := 0; c < n; c++ {
				if mask&(1<<uint(c)) != 0 {
					allowed[i] = append(allowed[i], c)
				}
			}
			keys *= len(allowed[i])
		}
		return keys
	}
	entries := 0
	for _, r := range b.rules {
		entries += ruleAllowed(r)
		if entries > budget.left {
			break
		}
	}
	if !budget.take(size + entries) {
		b.keys, b.unindexed = nil, true
		return
	}
	// each calls visit with every key the rule matches.
	pos := make([]int, len(b.keys))
	each := func(r *rule, visit func(key int)) {
		if ruleAllowed(r) == 0 {
			return
		}
		for i := range pos {
			pos[i] = 0
		}
		for {
			key := 0
			for i, k := range b.keys {
				key += allowed[i][pos[i]] * k.stride
			}
			visit(key)
			i := 0
			for ; i < len(pos); i++ {
				if pos[i]++; pos[i] < len(allowed[i]) {
					break
				}
				pos[i] = 0
			}
			if i == len(pos) {
				return
			}
		}
	}
	// Every key's list is a slice of one array, counted first and then
	// filled in file order: a list of its own for each of up to
	// maxStateTable keys was most of the allocations of engine.New.
	starts := make([]int, size+1)
	for _, r := range b.rules {
		each(r, func(key int) { starts[key+1]++ })
	}
	for key := 0; key < size; key++ {
		starts[key+1] += starts[key]
	}
	all := make([]*rule, starts[size])
	next := slices.Clone(starts[:size])
	for _, r := range b.rules {
		each(r, func(key int) { all[next[key]] = r; next[key]++ })
	}
	b.byState = make([][]*rule, size)
	for key := range b.byState {
		if i, j := starts[key], starts[key+1]; j > i {
			b.byState[key] = all[i:j:j]
		}
	}
	b.key0, b.keys = b.keys[0].slot, b.keys[1:]
	if len(b.keys) == 0 {
		b.keys = nil
	}
}

// The indexes of a plan (its buckets' rule lists and state indexes) hold
// at most maxBuildPerRule entries a rule of the plan, plus maxBuildBase:
// past that, a bucket is left unindexed and a group undispatched, and a
// decision checks the from clauses and guards of the rules it scans.
// Without the bound a plan's indexes grew with the rules times the state
// keys (40,000 rules over 12 two-valued slots: 3.8 GB and 16 s to build)
// or the rules times the dispatched values.
const (
	maxBuildPerRule = 16
	maxBuildBase    = 1 << 16
)

// buildBudget is what is left of a plan's index entries.
type buildBudget struct{ left int }

func newBuildBudget(rules int) buildBudget {
	return buildBudget{left: maxBuildPerRule*rules + maxBuildBase}
}

// spend spends n entries that are needed whatever is left.
func (b *buildBudget) spend(n int) { b.left = max(0, b.left-n) }

// take spends n entries, or reports that there is no room for them.
func (b *buildBudget) take(n int) bool {
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}
