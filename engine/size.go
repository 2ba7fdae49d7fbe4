package engine

import "unsafe"

// slotOverhead is what one slot holds besides its string and list
// contents.
const slotOverhead = int(unsafe.Sizeof(Session{}.state[0]))

// Bytes estimates the memory the session's state holds: every slot, and
// the bytes of its strings and lists. A server bounding the total size of
// its sessions adds this up; it walks the slots without allocating.
func (s *Session) Bytes() int {
	n := int(unsafe.Sizeof(*s))
	for i := range s.state {
		v := &s.state[i]
		n += slotOverhead + len(v.Str)
		switch x := v.X.(type) {
		case []float64:
			n += 8 * len(x)
		case []string:
			for _, e := range x {
				n += 16 + len(e)
			}
		}
	}
	return n
}
