package jsonscan

import (
	"encoding/binary"
	"unsafe"
)

// Key is an object key a reader looks up at every line: its text, and,
// for a key of at most eight bytes, those bytes as a word, made once, so
// that At compares a member's key with one load and one comparison where
// Get calls the runtime's comparison of strings (a call, and a branch on
// the length that mispredicts).
type Key struct {
	s    string
	word uint64
	mask uint64
}

// NewKey makes the Key of s.
func NewKey(s string) Key {
	k := Key{s: s}
	if len(s) <= 8 {
		var w [8]byte
		copy(w[:], s)
		k.word = binary.LittleEndian.Uint64(w[:])
		k.mask = 1<<(8*len(s)) - 1
		if len(s) == 8 {
			k.mask = ^uint64(0)
		}
	}
	return k
}

// String is the key's text.
func (k Key) String() string { return k.s }

// At is v.Get(k's text).
func (v Value) At(k Key) Value {
	if v.d == nil || len(k.s) > 8 {
		return v.member(k.s)
	}
	nd := v.d.nodes
	o := &nd[v.i]
	if o.kind != Object {
		return Value{}
	}
	src := v.d.src
	p := unsafe.Pointer(unsafe.SliceData(src))
	for j := v.i + 1; j < o.next; j = nd[j+1].next {
		kn := &nd[j]
		if int(kn.end-kn.start) != len(k.s) {
			continue
		}
		// A key is followed by at least its quote, a colon and a value,
		// but a short key near the end of a short text may not have
		// eight bytes from its start: those are compared as strings.
		if start := int(kn.start); start+8 <= len(src) {
			if binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, start))[:])&k.mask == k.word {
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
