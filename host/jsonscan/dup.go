package jsonscan

// Keys written twice. JSON.parse keeps, of a key an object writes twice,
// the last value, at the place of the first; a strict Doc marks such an
// object (node.dup) as it reads it, so that lookups in the many objects
// without one stay first-match, and only a marked object is read the
// JavaScript way.

// maxLinearKeys is how many keys of one object are compared one by one;
// past it the object's keys go in a set, so a huge object costs linear
// time.
const maxLinearKeys = 32

// keyText is a key node's text as it compares: its body, or its decoded
// text when it has an escape.
func (d *Doc) keyText(k int32) []byte {
	n := &d.nodes[k]
	if n.esc {
		return d.decoded(k)
	}
	return d.src[n.start:n.end]
}

// checkDup marks object o when its key at node key repeats an earlier one.
func (d *Doc) checkDup(o, key int32) {
	nd := d.nodes
	kn := nd[key]
	count := 0
	for j := o + 1; j < key; j = nd[j+1].next {
		count++
		if count > maxLinearKeys {
			d.checkDupSet(o, key)
			return
		}
		jn := &nd[j]
		if !jn.esc && !kn.esc {
			if jn.end-jn.start == kn.end-kn.start && string(d.src[jn.start:jn.end]) == string(d.src[kn.start:kn.end]) {
				d.markDup(o, key)
				return
			}
			continue
		}
		if string(d.keyText(j)) == string(d.keyText(key)) {
			d.markDup(o, key)
			return
		}
		nd = d.nodes
	}
}

// checkDupSet is checkDup for an object of many keys: the keys before
// this one, in a set kept for the object while it is read.
func (d *Doc) checkDupSet(o, key int32) {
	if d.keySets == nil {
		d.keySets = map[int32]map[string]struct{}{}
	}
	set, ok := d.keySets[o]
	if !ok {
		set = map[string]struct{}{}
		for j := o + 1; j < key; j = d.nodes[j+1].next {
			set[string(d.keyText(j))] = struct{}{}
		}
		d.keySets[o] = set
	}
	t := string(d.keyText(key))
	if _, ok := set[t]; ok {
		d.markDup(o, key)
		return
	}
	set[t] = struct{}{}
}

func (d *Doc) markDup(o, key int32) {
	d.nodes[o].dup = true
	if !d.hasDup {
		d.hasDup = true
		d.dup = append(d.dup[:0], d.keyText(key)...)
	}
}

// lastMember is the value of an object's last member whose key reads as
// key (a marked object).
func (v Value) lastMember(key string) Value {
	nd := v.d.nodes
	found := Value{}
	for k := v.i + 1; k < nd[v.i].next; k = nd[k+1].next {
		if string(v.d.keyText(k)) == key {
			found = Value{v.d, k + 1}
		}
		nd = v.d.nodes
	}
	return found
}

// dupMembers yields a marked object's members as JSON.parse makes them:
// each key once, where it was first written, with its last value. Two
// passes and a set, so an object of many keys written twice costs linear
// time.
func (v Value) dupMembers(yield func([]byte, Value) bool) {
	nd := v.d.nodes
	end := nd[v.i].next
	last := map[string]int32{}
	for k := v.i + 1; k < end; k = v.d.nodes[k+1].next {
		last[string(v.d.keyText(k))] = k + 1
	}
	done := make(map[string]bool, len(last))
	for k := v.i + 1; k < end; k = v.d.nodes[k+1].next {
		t := string(v.d.keyText(k))
		if done[t] {
			continue
		}
		done[t] = true
		if !yield(v.d.decoded(k), Value{v.d, last[t]}) {
			return
		}
	}
}

// keyBit is one of 64 bits picked by a key's length and last byte: two
// keys with different bits differ.
func keyBit(k []byte) uint64 {
	n := uint(len(k))
	if n > 0 {
		n = n*5 + uint(k[n-1])
	}
	return 1 << (n & 63)
}
