package engine

// A plan's state table: which of its groups can fire at all, and with
// which rules, is a function of the enum slots the plan's `from` clauses
// read, so it is tabulated once for every combination of them. A decision
// then mixes the state key once for the event instead of once per group,
// skips the groups that have no candidate in that state, and checks no
// `from` clause.

// step is one group of a plan in one state: its dispatch and, per
// bucket, the bucket's rules whose from matches the state (nil when none).
type step struct {
	lit     *litIndex
	cands   [][]*rule
	buckets []bucket // the group's, for their hoisted conjunct
}

// maxTableCells bounds a plan's state table: its keys times the buckets
// of the groups (a policy of thousands of tool rules has as many buckets
// in one group, and keeps the state index of each bucket instead).
const maxTableCells = 1 << 14

// tabulate builds the plan's state table, or leaves it nil when the
// slots its rules read have more combinations than maxStateTable, or the
// table would exceed maxTableCells. A plan whose rules read no slot has
// one key. The rules must be packed.
func (pl *plan) tabulate(slotEnums [][]string) {
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
			size *= len(slotEnums[f.slot])
			if size > maxStateTable {
				return
			}
		}
	}
	buckets := 0
	for gi := range pl.groups {
		buckets += len(pl.groups[gi].buckets)
	}
	if size*buckets > maxTableCells {
		return
	}
	codes := make([]int, len(slotEnums))
	matches := func(r *rule) bool {
		for _, f := range r.from {
			if f.mask&(1<<uint(codes[f.slot])) == 0 {
				return false
			}
		}
		return true
	}
	table := make([][]step, size)
	for key := range table {
		for _, k := range keys {
			codes[k.slot] = key / k.stride % len(slotEnums[k.slot])
		}
		for gi := range pl.groups {
			g := &pl.groups[gi]
			var cands [][]*rule
			for bi := range g.buckets {
				var rs []*rule
				for _, r := range g.buckets[bi].rules {
					if matches(r) {
						rs = append(rs, r)
					}
				}
				if rs != nil && cands == nil {
					cands = make([][]*rule, len(g.buckets))
				}
				if rs != nil {
					cands[bi] = rs
				}
			}
			if cands != nil {
				table[key] = append(table[key], step{lit: g.lit, cands: cands, buckets: g.buckets})
			}
		}
	}
	pl.table, pl.key0 = table, -1 // no slot read: one key
	if len(keys) > 0 {
		pl.key0, pl.keys = keys[0].slot, keys[1:]
	}
	if len(pl.keys) == 0 {
		pl.keys = nil
	}
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
		cands := st.cands[bi]
		if len(cands) == 0 {
			continue
		}
		if b := &st.buckets[bi]; b.pre != nil {
			if b.hasPreBits {
				if f.Bits&b.preBits.Mask != b.preBits.Want {
					continue
				}
			} else if !b.pre(f) {
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
			if err := s.fire(r); err != nil {
				return s.fail(ev, r, err)
			}
			break
		}
	}
	return nil
}
