package verify

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"unsafe"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// A state's expansion decides every event instance from it, but most
// instances behave alike. Those that read alike share one decision and
// one round of property checks (classes.go); of the rest, what follows
// from the transition — the next state's key, the loop graph, the
// observer — is worked out once per class of transitions: same next
// state (slots, window, at_most counters), same event kind and rules,
// same loop bits. The invariants read the next slots and the event's
// common facts: they are checked once per next slots and values of the
// facts they read. The first instance of a class, in the order they are
// tried, stands for it, so a counterexample is the one a
// transition-by-transition search finds.

// expansion is the scratch of one state's expansion, kept across states.
type expansion struct {
	posts   [][]lang.Value      // the distinct next slots
	byHash  map[uint64][]int    // hash of slots -> indexes in posts
	classes map[string]struct{} // the transition classes seen
	key     []byte              // a class's key, being built
	counts  []int               // at_most counters after the decision
	hist    []lang.Value        // what the scopes remember after it
	echo    echoes              // the attempts the host may echo after it
	cont    []bool              // loop bits
	free    []bool
	seed    maphash.Seed
	in      instance // the instance made whole (materialize)
	// invChecked holds the pairs of next slots and values of the facts
	// the invariants read that they were checked on.
	invChecked map[uint64]bool

	// The classes of instances (classes.go): the trie, the decisions,
	// their rules and effects, and the facts read by the evaluation
	// under way — seq in the order first read, seen as a set — by
	// position in the event set's facts (pos maps a fact's index to it).
	trie      trie
	decisions []decision
	ruleArena []string
	effArena  []engine.Effect
	pos       []int8
	seq       []int32
	seen      uint64
}

func (x *expansion) reset() {
	x.posts = x.posts[:0]
	clear(x.byHash)
	clear(x.classes)
	clear(x.invChecked)
	x.trie.reset()
	x.decisions = x.decisions[:0]
	clear(x.ruleArena) // drop the references the arenas hold
	clear(x.effArena)
	x.ruleArena, x.effArena = x.ruleArena[:0], x.effArena[:0]
}

// post returns the index of the slots vals among the expansion's distinct
// next slots, adding a copy when they are new.
func (x *expansion) post(vals []lang.Value) (int, []lang.Value) {
	var h maphash.Hash
	h.SetSeed(x.seed)
	var b [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v.Num))
		h.Write(b[:])
		h.WriteString(v.Str)
		if v.Bool {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	}
	sum := h.Sum64()
	for _, k := range x.byHash[sum] {
		if slices.Equal(x.posts[k], vals) {
			return k, x.posts[k]
		}
	}
	k := len(x.posts)
	c := slices.Clone(vals)
	x.posts = append(x.posts, c)
	x.byHash[sum] = append(x.byHash[sum], k)
	return k, c
}

func (m *model) expand(i int, n *node) {
	for _, t := range m.deadlines(n) {
		next := &node{vals: n.vals, window: n.window, now: t, counts: n.counts, hist: n.hist, echo: n.echo, parent: i, via: &step{now: t, delta: t - n.now}, depth: n.depth + 1}
		m.transitions++
		j, _ := m.add(next)
		if cont, free, any := m.loopBits(m.x.cont, m.x.free, n, nil, next.via); any {
			m.edge(i, j, next.via, cont, free)
		}
	}
	x := &m.x
	x.reset()
	idBase := m.maxID(n)
	win, now := m.hostValues(n)
	for _, set := range m.events(n) {
		x.pos = set.pos
		share := set.share && !m.opts.everyInstance
		var root int32
		for k := range set.ins {
			v := &set.ins[k]
			var in *instance
			di, hit, slot, walked := x.trie.find(root, v.vi)
			if !hit {
				if in = m.materialize(set, v, win, now); in == nil {
					continue
				}
				di = m.decide(i, n, in, idBase)
				if share {
					x.trie.insert(&root, slot, walked, x.seq, set.sizes, v.vi, di)
				}
			}
			d := &x.decisions[di]
			if d.failed {
				continue
			}
			if !m.invariantsDone(d, v.inv) {
				if in == nil {
					if in = m.materialize(set, v, win, now); in == nil {
						continue
					}
				}
				m.invariants(i, n, in, d, idBase)
			}
			if _, hit, slot, walked = x.trie.find(d.props, v.vi); hit {
				continue
			}
			if in == nil {
				if in = m.materialize(set, v, win, now); in == nil {
					continue
				}
			}
			x.seq, x.seen = x.seq[:0], 0
			m.transition(i, n, in, d, idBase)
			if share {
				x.trie.insert(&d.props, slot, walked, x.seq, set.sizes, v.vi, 0)
			}
		}
	}
	x.pos = nil
}

// decide decides in from n, checks the file order of the rules that
// fired, and keeps the decision; it notes the facts both read.
func (m *model) decide(i int, n *node, in *instance, idBase float64) int32 {
	x := &m.x
	x.seq, x.seen = x.seq[:0], 0
	m.ruleReads(n, in)
	m.sess.SetValues(n.vals)
	d, err := m.sess.Decide(in.ev)
	m.transitions++
	var c decision
	if err != nil {
		st := &step{set: in.set, vi: in.vi, now: n.now, idBase: idBase}
		m.report("runtime error", KindRuntime, fmt.Sprintf("a reachable decision fails at run time: %v", err), i, st)
		c.failed = true
	} else {
		st := &m.cur
		*st = step{set: in.set, vi: in.vi, now: n.now, idBase: idBase, rules: d.Rules, effects: d.Effects}
		m.checkOrder(i, n, in, d.Rules, st)
		m.buf = m.sess.Values(m.buf[:0])
		c.pk, c.post = -1, n.vals
		if !slices.Equal(m.buf, n.vals) {
			c.pk, c.post = x.post(m.buf)
		}
		for _, e := range d.Effects {
			if e.Name == "commit_reset" || e.Name == "provide_reset" {
				c.resets = true
			}
		}
		// The decision's slices are the session's buffers, good until the
		// next Decide: the class keeps copies.
		c.r0 = len(x.ruleArena)
		x.ruleArena = append(x.ruleArena, d.Rules...)
		c.r1, c.e0 = len(x.ruleArena), len(x.effArena)
		x.effArena = append(x.effArena, d.Effects...)
		c.e1 = len(x.effArena)
	}
	x.decisions = append(x.decisions, c)
	return int32(len(x.decisions) - 1)
}

// transition checks the decision d of in from n against the properties
// and adds what follows from it, once per class of transitions.
func (m *model) transition(i int, n *node, in *instance, d *decision, idBase float64) {
	x := &m.x
	rules := x.rules(d)
	st := &m.cur
	*st = step{set: in.set, vi: in.vi, now: n.now, idBase: idBase, rules: rules, effects: x.effects(d)}
	m.checkEffects(i, n, in, st)
	m.note1(m.userInputAt[in.kind]) // a request the user typed ends loops
	// The host's answers: a reset it carries out opens a new window; it
	// may also fail to build the boundary and stay where it is.
	for failed := range 2 {
		if failed == 1 && !d.resets {
			break
		}
		st.failed = failed == 1
		st.newWindow = (d.resets && !st.failed) || in.newSession
		x.counts, x.hist = m.count(x.counts, x.hist, i, n, in, st, st.newWindow)
		x.echo = n.echo.after(st.effects)
		cont, free, any := m.loopBits(x.cont, x.free, n, in, st)
		x.cont, x.free = cont, free
		if !m.newClass(d.pk, in, rules, st, any) {
			continue
		}
		for _, r := range rules {
			m.fired[r] = true
		}
		if m.opts.Observe != nil {
			m.opts.Observe(n.vals, d.post, in.ev.Name(), rules)
		}
		s := new(step)
		*s = *st
		s.rules, s.effects = nil, nil
		next := &node{vals: d.post, window: n.window, now: n.now, parent: i, via: s, depth: n.depth + 1, counts: n.counts, hist: n.hist, echo: x.echo}
		if st.newWindow {
			next.window = n.window + 1
		}
		if !slices.Equal(x.counts, n.counts) {
			next.counts = slices.Clone(x.counts)
		}
		histMoved := !sameValues(x.hist, n.hist)
		if histMoved {
			next.hist = slices.Clone(x.hist)
		}
		j := i
		if d.pk >= 0 || next.window != n.window || !slices.Equal(next.counts, n.counts) || histMoved || next.echo != n.echo {
			j, _ = m.add(next)
		}
		if any {
			m.edge(i, j, s, cont, free)
		}
	}
}

// invariantsDone reports whether the invariants were checked on the next
// slots of decision d with the values inv numbers of the facts they read
// (the window and the clock are the state's): they are checked once per
// pair, at the first instance that has it, whatever its classes.
func (m *model) invariantsDone(d *decision, inv int32) bool {
	if !m.hasInvariants {
		return true
	}
	if inv < 64 && d.inv&(1<<uint(inv)) != 0 {
		return true
	}
	ck := uint64(d.pk+1)<<32 | uint64(inv)
	done := m.x.invChecked[ck]
	m.x.invChecked[ck] = true
	if inv < 64 {
		d.inv |= 1 << uint(inv)
	}
	return done
}

// invariants checks the invariants after decision d of in from n, as the
// host carries out any reset it asks for.
func (m *model) invariants(i int, n *node, in *instance, d *decision, idBase float64) {
	st := &m.cur
	*st = step{set: in.set, vi: in.vi, now: n.now, idBase: idBase, newWindow: d.resets || in.newSession}
	next := node{vals: d.post, window: n.window, now: n.now, parent: i, depth: n.depth + 1, counts: n.counts}
	m.checkAlways(i, &next, in, st)
}

// newClass reports whether the transition just decided is the first of
// its class in this expansion, and records it.
func (m *model) newClass(pk int, in *instance, rules []string, st *step, loopFree bool) bool {
	x := &m.x
	b := x.key[:0]
	b = binary.AppendVarint(b, int64(pk))
	b = binary.AppendUvarint(b, uint64(in.kind))
	if st.newWindow {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, c := range x.counts {
		b = binary.AppendVarint(b, int64(c))
	}
	for _, v := range x.hist {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Num))
		b = append(b, boolByte(v.Bool))
		b = binary.AppendUvarint(b, uint64(len(v.Str)))
		b = append(b, v.Str...)
	}
	for _, v := range x.echo {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	if loopFree {
		for k := range x.cont {
			b = append(b, boolByte(x.cont[k])|boolByte(x.free[k])<<1)
		}
	}
	// Rule names are the policy's own strings: their address names them.
	for _, r := range rules {
		b = binary.AppendUvarint(b, uint64(uintptr(unsafe.Pointer(unsafe.StringData(r)))))
		b = binary.AppendUvarint(b, uint64(len(r)))
	}
	x.key = b
	if _, seen := x.classes[string(b)]; seen {
		return false
	}
	x.classes[string(b)] = struct{}{}
	return true
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// sameValues compares what scopes remember (numbers, strings, bools).
func sameValues(a, b []lang.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Num != b[i].Num || a[i].Str != b[i].Str || a[i].Bool != b[i].Bool {
			return false
		}
	}
	return true
}
