package verify

import (
	"slices"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Expressions are pure and their conjuncts run in order until one is
// false, so what an evaluation decides follows from the facts it read:
// an instance that agrees with one already tried on every fact that one
// read is decided and checked alike. Per state and event kind, verify
// keeps two levels of such classes in a trie keyed by the facts' values
// in the order they were first read:
//
//   - the decision: the rules' guards run as the engine runs them (per
//     group, in file order, until one fires), the fired rule's
//     assignments and effects, and the file-order check of the later
//     rules; one Decide per class;
//   - within a decision, the properties: every condition the checks of
//     the transition evaluate. The invariants are checked apart, once per
//     next state and value of the facts they read (invariantsDone).
//
// An instance that lands in a known class of both levels would find
// nothing new — the same decision, the same conditions, the same class
// of transitions — so it is passed over. Instances are still tried in
// their order, and the first of each class is the one a search that
// decides every instance would take: the same states, parents and
// counterexamples.
//
// A guard that fails at run time fails the decision: the engine
// dispatches on a first conjunct only, so it runs every conjunct before
// the failing one, as verify does. verify still notes every conjunct,
// assignment and effect of that rule and reads the rules after it, so a
// class never rests on where the error fell.

// ruleGroup is one plan group of an event kind, as readers. Like the
// engine, it dispatches on a literal: the rules whose first conjunct is
// `event.F == 'lit'` for one fact F are kept by literal, and an instance
// runs only those of its own value of F (the others are false at once,
// having read F) with the rest, in file order.
type ruleGroup struct {
	rules []ruleReader
	lit   int                // F's index in the event; -1: none
	byLit map[string][]int32 // F's value -> the rules keyed on it
	rest  []int32            // the rules not keyed
}

// ruleReader is one rule of an event kind's plan group, its conjuncts
// and what it reads once they all hold, by fact index in the event.
type ruleReader struct {
	from  []rules.Match
	parts []tpart
	tail  []int
}

// tpart is one conjunct and the facts it reads (window and clock aside:
// a state's own).
type tpart struct {
	prog  *lang.Program
	facts []int
}

type tkey struct {
	p *lang.Program
	k int
}

// factIndexes maps fact names to their indexes in event kind k's facts,
// leaving out the window and the clock.
func (m *model) factIndexes(k int, names []string) []int {
	def, _ := contract.LookupEvent(m.eventNames[k])
	var out []int
	for i, f := range def.AllFacts() {
		if f.Name != factWindow && f.Name != factNow && slices.Contains(names, f.Name) {
			out = append(out, i)
		}
	}
	return out
}

// partsFor returns a condition's conjuncts on event kind k.
func (m *model) partsFor(w *lang.Program, k int) []tpart {
	key := tkey{w, k}
	if ps, ok := m.tparts[key]; ok {
		return ps
	}
	progs := w.Parts
	if len(progs) == 0 {
		progs = []*lang.Program{w}
	}
	ps := make([]tpart, len(progs))
	for i, p := range progs {
		ps[i] = tpart{prog: p, facts: m.factIndexes(k, m.dom.an.info(p.Source).facts)}
	}
	m.tparts[key] = ps
	return ps
}

// ruleReadersOf lists, per event kind and plan group, the rules as
// readers.
func (m *model) ruleReadersOf() {
	m.tparts = map[tkey][]tpart{}
	m.ruleGroups = make([][]ruleGroup, len(m.eventNames))
	m.userInputAt = make([]int, len(m.eventNames))
	m.reasonAt = make([]int, len(m.eventNames))
	for k, name := range m.eventNames {
		m.userInputAt[k], m.reasonAt[k] = -1, -1
		if name == "request" {
			m.userInputAt[k] = m.factIndex(k, "user_input")
		}
		if name == "session_start" {
			m.reasonAt[k] = m.factIndex(k, "reason")
		}
		def, _ := contract.LookupEvent(name)
		all := def.AllFacts()
		for _, pg := range m.p.PlanFor(name).Groups {
			var g []ruleReader
			for _, cr := range pg.Rules {
				r := ruleReader{from: cr.From}
				if cr.When != nil {
					r.parts = m.partsFor(cr.When, k)
				}
				var tail []string
				for _, src := range ruleSources(cr) {
					if cr.When == nil || src != cr.When.Source {
						tail = append(tail, m.dom.an.info(src).facts...)
					}
				}
				r.tail = m.factIndexes(k, tail)
				g = append(g, r)
			}
			m.ruleGroups[k] = append(m.ruleGroups[k], groupOf(g, all))
		}
	}
}

// groupOf keys a group's rules on the fact their first conjuncts most
// often compare with a literal.
func groupOf(rs []ruleReader, all []contract.Fact) ruleGroup {
	g := ruleGroup{rules: rs, lit: -1}
	lits := map[int]int{}
	for _, r := range rs {
		if l := firstLit(r); l != nil {
			lits[l.Fact]++
		}
	}
	for f, c := range lits {
		if g.lit < 0 || c > lits[g.lit] || (c == lits[g.lit] && f < g.lit) {
			g.lit = f
		}
	}
	g.byLit = map[string][]int32{}
	for ri, r := range rs {
		if l := firstLit(r); g.lit >= 0 && l != nil && l.Fact == g.lit {
			v := l.Str
			if l.Enum {
				v = all[l.Fact].Enum[l.Code]
			}
			g.byLit[v] = append(g.byLit[v], int32(ri))
			continue
		}
		g.rest = append(g.rest, int32(ri))
	}
	return g
}

// firstLit is the literal a rule's first conjunct compares a fact with.
func firstLit(r ruleReader) *lang.Lit {
	if len(r.parts) == 0 {
		return nil
	}
	return r.parts[0].prog.Lit
}

func (m *model) factIndex(k int, name string) int {
	def, _ := contract.LookupEvent(m.eventNames[k])
	return slices.IndexFunc(def.AllFacts(), func(f contract.Fact) bool { return f.Name == name })
}

// note records that the facts (by index in the event) were read, in the
// order first read, by their position among the facts the event set
// varies; a fact it does not vary holds one value in all its instances.
func (m *model) note(facts []int) {
	for _, fi := range facts {
		m.note1(fi)
	}
}

func (m *model) note1(fi int) {
	x := &m.x
	if x.pos == nil || fi < 0 || fi >= len(x.pos) {
		return
	}
	p := x.pos[fi]
	if p < 0 || x.seen&(1<<uint(p)) != 0 {
		return
	}
	x.seen |= 1 << uint(p)
	x.seq = append(x.seq, int32(p))
}

// ruleReads notes the facts the engine's decision of in from n can read.
func (m *model) ruleReads(n *node, in *instance) {
	f := &m.frame
	f.BeginPacked(in.frame, n.vals, in.pack)
	m.note1(m.reasonAt[in.kind]) // a new session opens a new window
	for gi := range m.ruleGroups[in.kind] {
		g := &m.ruleGroups[in.kind][gi]
		rest, keyed := g.rest, []int32(nil)
		if g.lit >= 0 {
			m.note1(g.lit)
			keyed = g.byLit[in.frame[g.lit].Str]
		}
		for len(rest) > 0 || len(keyed) > 0 {
			var ri int32
			if len(keyed) == 0 || (len(rest) > 0 && rest[0] < keyed[0]) {
				ri, rest = rest[0], rest[1:]
			} else {
				ri, keyed = keyed[0], keyed[1:]
			}
			r := &g.rules[ri]
			if !fromHolds(r.from, n) {
				continue
			}
			fired, failed := true, false
			for _, p := range r.parts {
				m.note(p.facts)
				ok := p.prog.B(f)
				if f.Err != nil {
					failed = true
					break
				}
				if !ok {
					fired = false
					break
				}
			}
			if failed {
				for _, p := range r.parts {
					m.note(p.facts)
				}
				m.note(r.tail)
				f.BeginPacked(in.frame, n.vals, in.pack)
				continue
			}
			if fired {
				m.note(r.tail)
				break
			}
		}
	}
}

// holdsIn evaluates a condition on an event instance and the state
// before it, conjunct by conjunct, noting the facts it reads.
func (m *model) holdsIn(w *lang.Program, in *instance, state []lang.Value) bool {
	m.frame.BeginPacked(in.frame, state, in.pack)
	for _, p := range m.partsFor(w, in.kind) {
		m.note(p.facts)
		if !p.prog.B(&m.frame) || m.frame.Err != nil {
			return false
		}
	}
	return true
}

// trie holds one state's classes: inner nodes branch on one fact's value
// index, leaves hold a payload.
type trie struct {
	nodes []tnode
	kids  []int32 // per inner node, one child per value (0: none yet)
}

type tnode struct {
	at  int32 // the position branched on; -1: a leaf
	off int32 // an inner node's first child in kids; a leaf's payload
}

func (t *trie) reset() {
	t.nodes = append(t.nodes[:0], tnode{}) // node 0 stands for none
	t.kids = t.kids[:0]
}

// find walks from root along the value indexes vi. On a leaf it returns
// its payload; otherwise slot is where vi leaves the trie (-1: root is
// empty) and walked the positions passed on the way.
func (t *trie) find(root int32, vi []uint32) (payload int32, hit bool, slot int32, walked uint64) {
	if root == 0 {
		return 0, false, -1, 0
	}
	n := root
	for {
		nd := t.nodes[n]
		if nd.at < 0 {
			return nd.off, true, 0, walked
		}
		walked |= 1 << uint(nd.at)
		s := nd.off + int32(vi[nd.at])
		c := t.kids[s]
		if c == 0 {
			return 0, false, s, walked
		}
		n = c
	}
}

// insert adds, at slot (-1: the root), the path of vi over the positions
// seq not walked already, ending in a leaf holding payload. The leaf's
// class is the instances that agree with vi on every position of the
// path: those on the way to slot and those of seq.
func (t *trie) insert(root *int32, slot int32, walked uint64, seq []int32, sizes []int, vi []uint32, payload int32) {
	link := func(c int32) {
		if slot < 0 {
			*root = c
		} else {
			t.kids[slot] = c
		}
	}
	for _, p := range seq {
		if walked&(1<<uint(p)) != 0 {
			continue
		}
		walked |= 1 << uint(p)
		c, off := int32(len(t.nodes)), int32(len(t.kids))
		t.nodes = append(t.nodes, tnode{at: p, off: off})
		t.kids = slices.Grow(t.kids, sizes[p])[:int(off)+sizes[p]]
		clear(t.kids[off:])
		link(c)
		slot = off + int32(vi[p])
	}
	c := int32(len(t.nodes))
	t.nodes = append(t.nodes, tnode{at: -1, off: payload})
	link(c)
}

// decision is one class of decisions from a state: the engine's answer,
// kept while the instances of the class come up, and the root of its
// classes of property checks.
type decision struct {
	failed         bool
	pk             int
	post           []lang.Value
	resets         bool
	r0, r1, e0, e1 int // the rules and effects, in the expansion's arenas
	props          int32
	inv            uint64 // the invID values below 64 checked (invariantsDone)
}

func (x *expansion) rules(d *decision) []string { return x.ruleArena[d.r0:d.r1] }

func (x *expansion) effects(d *decision) []engine.Effect { return x.effArena[d.e0:d.e1] }
