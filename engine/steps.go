package engine

import (
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// A plan's state table: which of its groups can fire at all, and with
// which rules, is a function of the enum slots the plan's `from` clauses
// read, so it is tabulated once for every combination of them. A decision
// then mixes the state key once for the event instead of once per group,
// skips the groups that have no candidate in that state, and checks no
// `from` clause.

// step is one group of a plan in one state: its dispatch and a cell per
// bucket.
type step struct {
	lit   *litIndex
	cells []cell
}

// cell is a bucket in one state: its rules whose from matches the state
// (nil when none) and the bucket's hoisted conjunct, side by side so that
// a decision indexes one array.
type cell struct {
	cands      []*rule
	pre        func(*lang.Frame) bool
	preBits    lang.BitTest
	hasPreBits bool
}

// maxTableCells bounds a plan's state table: its keys times the buckets
// of the groups (a policy of thousands of tool rules has as many buckets
// in one group, and keeps the state index of each bucket instead).
const maxTableCells = 1 << 14

// tabulate builds the plan's state table, or leaves it nil when the
// slots its rules read have more combinations than maxStateTable, the
// table would exceed maxTableCells, or a bucket has no state index (the
// build budget left none). A plan whose rules read no slot has
// one key. The rules must be packed.
func (pl *plan) tabulate(slots []*rules.Slot) {
	seen := map[int]bool{}
	var keys []stateKey
	size := 1
	for _, r := range pl.rules {
		for _, f := range r.from {
			if seen[f.slot] {
				continue
			}
			seen[f.slot] = true
			keys = append(keys, stateKey{slot: f.slot, stride: size})
			size *= len(slots[f.slot].Enum)
			if size > maxStateTable {
				return
			}
		}
	}
	buckets := 0
	for gi := range pl.groups {
		for bi := range pl.groups[gi].buckets {
			if pl.groups[gi].buckets[bi].unindexed {
				return // its candidates need their from checked
			}
		}
		buckets += len(pl.groups[gi].buckets)
	}
	if size*buckets > maxTableCells {
		return
	}
	codes := make([]int, len(slots))
	// Every key's steps and cells are slices of two arrays, counted first
	// and then filled; a cell's candidates are its bucket's state index's
	// list for the key.
	var (
		cells []cell
		steps []step
		table = make([][]step, size)
	)
	walk := func(fill bool) (ncells, nsteps int) {
		for key := range table {
			for _, k := range keys {
				codes[k.slot] = key / k.stride % len(slots[k.slot].Enum)
			}
			keyFrom := nsteps
			for gi := range pl.groups {
				g := &pl.groups[gi]
				some := false
				for bi := range g.buckets {
					if len(g.buckets[bi].candidates(codes)) > 0 {
						some = true
						break
					}
				}
				if !some {
					continue
				}
				cellFrom := ncells
				for bi := range g.buckets {
					if fill {
						b := &g.buckets[bi]
						cells[ncells] = cell{cands: b.candidates(codes), pre: b.pre, preBits: b.preBits, hasPreBits: b.hasPreBits}
					}
					ncells++
				}
				if fill {
					steps[nsteps] = step{lit: g.lit, cells: cells[cellFrom:ncells:ncells]}
				}
				nsteps++
			}
			if fill && nsteps > keyFrom {
				table[key] = steps[keyFrom:nsteps:nsteps]
			}
		}
		return ncells, nsteps
	}
	ncells, nsteps := walk(false)
	cells, steps = make([]cell, ncells), make([]step, nsteps)
	walk(true)
	pl.table, pl.key0 = table, -1 // no slot read: one key
	if len(keys) > 0 {
		pl.key0, pl.keys = keys[0].slot, keys[1:]
	}
	if len(pl.keys) == 0 {
		pl.keys = nil
	}
}

// key is the state table's key of the state.
func (pl *plan) key(state []lang.Value) int {
	if pl.key0 < 0 {
		return 0
	}
	key := int(state[pl.key0].Num)
	for _, k := range pl.keys {
		key += int(state[k.slot].Num) * k.stride
	}
	return key
}

// candidates is the bucket's rules whose from matches the slots' codes
// (an enum slot's index, by slot), from its state index.
func (b *bucket) candidates(codes []int) []*rule {
	if b.byState == nil {
		return b.rules // no rule of the bucket reads a slot
	}
	key := codes[b.key0]
	for _, k := range b.keys {
		key += codes[k.slot] * k.stride
	}
	return b.byState[key]
}

// runSteps is run on a plan with a state table: the steps of the state
// the event finds.
func (s *Session) runSteps(ev *Event, steps []step) error {
	f := &s.frame
	for i := range steps {
		st := &steps[i]
		bi := int32(0)
		if x := st.lit; x != nil {
			if x.codes {
				bi = x.byCode[ev.packed.Codes>>uint(4*x.fact)&15]
			} else {
				bi = x.find(ev)
			}
		}
		c := &st.cells[bi]
		cands := c.cands
		if len(cands) == 0 {
			continue
		}
		if c.pre != nil {
			if c.hasPreBits {
				if f.Bits&c.preBits.Mask != c.preBits.Want {
					continue
				}
			} else if !c.pre(f) {
				if f.Err != nil {
					return s.fail(ev, cands[0], f.Err)
				}
				continue
			}
		}
		for _, r := range cands {
			// A mask test cannot fail, so it needs no error check.
			if r.hasBits {
				if f.Bits&r.bits.Mask != r.bits.Want {
					continue
				}
			} else if w := r.when; w != nil && !w(f) {
				if f.Err != nil {
					return s.fail(ev, r, f.Err)
				}
				continue
			}
			// The first rule to fire in the event, when plain, fires as
			// fire would fire it, without the call.
			if d := &s.decision; r.plain && len(d.Effects) == 0 && f.Err == nil {
				s.fired = append(s.fired, firing{r: r, sets: len(s.writes)})
				d.Effects, s.effectsShared = r.statics, true
				d.Rules = append(d.Rules, r.name)
				break
			}
			if err := s.fire(r); err != nil {
				return s.fail(ev, r, err)
			}
			break
		}
	}
	return nil
}
