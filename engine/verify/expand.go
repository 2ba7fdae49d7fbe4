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
// instances behave alike: they fire the same rules, lead to the same state
// and leave the properties in the same place. Each instance is decided and
// checked against the properties whose conditions read its facts; what
// follows from the transition — the next state's key, the invariants on
// it, the loop graph, the observer — is worked out once per class of
// transitions: same next state (slots, window, at_most counters), same
// event kind and rules, same loop bits, same facts the invariants read.
// The first instance of a class, in the order they are tried, stands for
// it, so a counterexample is the one a transition-by-transition search
// finds.

// expansion is the scratch of one state's expansion, kept across states.
type expansion struct {
	posts   [][]lang.Value      // the distinct next slots
	byHash  map[uint64][]int    // hash of slots -> indexes in posts
	classes map[string]struct{} // the transition classes seen
	key     []byte              // a class's key, being built
	counts  []int               // at_most counters after the decision
	cont    []bool              // loop bits
	free    []bool
	seed    maphash.Seed
}

func (x *expansion) reset() {
	x.posts = x.posts[:0]
	clear(x.byHash)
	clear(x.classes)
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
		next := &node{vals: n.vals, window: n.window, now: t, counts: n.counts, parent: i, via: &step{now: t, delta: t - n.now}, depth: n.depth + 1}
		m.transitions++
		j, _ := m.add(next)
		if cont, free, any := m.loopBits(m.x.cont, m.x.free, n, nil, next.via); any {
			m.edge(i, j, next.via, cont, free)
		}
	}
	x := &m.x
	x.reset()
	idBase := m.maxID(n)
	for _, evs := range m.events(n) {
		var (
			d      *engine.Decision
			err    error
			pk     int
			post   []lang.Value
			resets bool
		)
		for k := range evs {
			in := &evs[k]
			st := &m.cur
			if k == 0 || in.group != evs[k-1].group {
				// A new valuation of the facts the rules read: decide it. The
				// instances after it in its group differ in facts only the
				// properties read, and are decided alike.
				m.sess.SetValues(n.vals)
				d, err = m.sess.Decide(in.ev)
				m.transitions++
				if err != nil {
					st := &step{event: in.facts, now: n.now, idBase: idBase}
					m.report("runtime error", KindRuntime, fmt.Sprintf("a reachable decision fails at run time: %v", err), i, st)
					continue
				}
				*st = step{event: in.facts, now: n.now, idBase: idBase, rules: d.Rules, effects: d.Effects}
				m.checkOrder(i, n, in, d.Rules, st)
				m.buf = m.sess.Values(m.buf[:0])
				pk, post = -1, n.vals
				if !slices.Equal(m.buf, n.vals) {
					pk, post = x.post(m.buf)
				}
				resets = false
				for _, e := range d.Effects {
					if e.Name == "commit_reset" || e.Name == "provide_reset" {
						resets = true
					}
				}
			} else if err != nil {
				continue
			}
			// The decision's slices are the session's buffers: read them only
			// until the next Decide (a trace replays the events instead).
			*st = step{event: in.facts, now: n.now, idBase: idBase, rules: d.Rules, effects: d.Effects}
			m.checkEffects(i, n, in, st)
			// The host's answers: a reset it carries out opens a new window; it
			// may also fail to build the boundary and stay where it is.
			for failed := range 2 {
				if failed == 1 && !resets {
					break
				}
				st.failed = failed == 1
				st.newWindow = (resets && !st.failed) || in.newSession
				x.counts = m.count(x.counts, i, n, in, st, st.newWindow)
				cont, free, any := m.loopBits(x.cont, x.free, n, in, st)
				x.cont, x.free = cont, free
				if !m.newClass(pk, in, d, st, any) {
					continue
				}
				for _, r := range d.Rules {
					m.fired[r] = true
				}
				if m.opts.Observe != nil {
					m.opts.Observe(n.vals, post, in.ev.Name(), d.Rules)
				}
				s := new(step)
				*s = *st
				s.rules, s.effects = nil, nil
				next := &node{vals: post, window: n.window, now: n.now, parent: i, via: s, depth: n.depth + 1, counts: n.counts}
				if st.newWindow {
					next.window = n.window + 1
				}
				if !slices.Equal(x.counts, n.counts) {
					next.counts = slices.Clone(x.counts)
				}
				m.checkAlways(i, next, in, s)
				j := i
				if pk >= 0 || next.window != n.window || !slices.Equal(next.counts, n.counts) {
					j, _ = m.add(next)
				}
				if any {
					m.edge(i, j, s, cont, free)
				}
			}
		}
	}
}

// newClass reports whether the transition just decided is the first of
// its class in this expansion, and records it.
func (m *model) newClass(pk int, in *instance, d *engine.Decision, st *step, loopFree bool) bool {
	x := &m.x
	b := x.key[:0]
	b = binary.AppendVarint(b, int64(pk))
	b = binary.AppendUvarint(b, uint64(in.kind))
	b = binary.AppendUvarint(b, uint64(in.inv))
	if st.newWindow {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, c := range x.counts {
		b = binary.AppendVarint(b, int64(c))
	}
	if loopFree {
		for k := range x.cont {
			b = append(b, boolByte(x.cont[k])|boolByte(x.free[k])<<1)
		}
	}
	// Rule names are the policy's own strings: their address names them.
	for _, r := range d.Rules {
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
