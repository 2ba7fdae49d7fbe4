package jsonscan

import (
	"encoding/binary"
	"unsafe"
)

// Key is an object key a reader looks up at every line: its text, and,
// for a key of at most sixteen bytes, those bytes as two words, made
// once, so that At compares a member's key with a load or two and as
// many comparisons where Get calls the runtime's comparison of strings (a
// call, and a branch on the length that mispredicts).
type Key struct {
	s string
	// word and mask: the key's bytes, zero past its end, and the bytes
	// of a member's key they are compared with.
	word, mask [2]uint64
}

// NewKey makes the Key of s.
func NewKey(s string) Key {
	k := Key{s: s}
	if len(s) <= 16 {
		var w [16]byte
		copy(w[:], s)
		for i := range 2 {
			k.word[i] = binary.LittleEndian.Uint64(w[8*i:])
			switch n := len(s) - 8*i; {
			case n >= 8:
				k.mask[i] = ^uint64(0)
			case n > 0:
				k.mask[i] = 1<<(8*n) - 1
			}
		}
	}
	return k
}

// String is the key's text.
func (k Key) String() string { return k.s }

// At is v.Get(k's text).
func (v Value) At(k Key) Value {
	if v.d == nil || len(k.s) > 16 {
		return v.member(k.s)
	}
	nd := v.d.nodes
	o := &nd[v.i]
	if o.kind != Object {
		return Value{}
	}
	if o.dup {
		return v.lastMember(k.s)
	}
	src := v.d.src
	p := unsafe.Pointer(unsafe.SliceData(src))
	for j := v.i + 1; j < o.next; j = nd[j+1].next {
		kn := &nd[j]
		if int(kn.end-kn.start) != len(k.s) {
			continue
		}
		// A key is followed by at least its quote, a colon and a value,
		// but a key near the end of a short text may not have sixteen
		// bytes from its start: those are compared as strings.
		if start := int(kn.start); start+16 <= len(src) {
			lo := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, start))[:])
			hi := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, start+8))[:])
			if lo&k.mask[0] == k.word[0] && hi&k.mask[1] == k.word[1] {
				return Value{v.d, j + 1}
			}
		} else if string(src[kn.start:kn.end]) == k.s {
			return Value{v.d, j + 1}
		}
	}
	if !o.esc {
		return Value{}
	}
	return v.member(k.s)
}
