package jsonscan

import (
	"iter"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/valyala/fastjson/fastfloat"
)

// Value is one value of a Doc, valid until the Doc reads the next one.
// The zero Value is a value that is not there: every reader of it reports
// nothing (None, nil, 0, false).
type Value struct {
	d *Doc
	i int32
}

func (v Value) node() *node { return &v.d.nodes[v.i] }

// Kind is the value's JSON type (None for no value).
func (v Value) Kind() Kind {
	if v.d == nil {
		return None
	}
	return v.node().kind
}

// Exists reports a value that is there.
func (v Value) Exists() bool { return v.d != nil }

// Get follows keys through objects, as fastjson's Value.Get does: the
// first member whose key is written as the key, or else the first whose
// key decodes to it. No value, or a step that is not an object, is the
// zero Value (fastjson also takes a key as an index into an array; the
// session reader never asks that).
func (v Value) Get(keys ...string) Value {
	for _, k := range keys {
		if v = v.member(k); v.d == nil {
			break
		}
	}
	return v
}

func (v Value) member(key string) Value {
	if v.d == nil {
		return Value{}
	}
	nd := v.d.nodes
	o := &nd[v.i]
	if o.kind != Object {
		return Value{}
	}
	if o.dup {
		return v.lastMember(key)
	}
	for k := v.i + 1; k < o.next; k = nd[k+1].next {
		// The length first, from the table: most keys differ in it, and
		// the text is then not touched.
		if kn := &nd[k]; int(kn.end-kn.start) == len(key) && string(v.d.src[kn.start:kn.end]) == key {
			return Value{v.d, k + 1}
		}
	}
	if !o.esc {
		return Value{}
	}
	for k := v.i + 1; k < o.next; k = nd[k+1].next {
		if nd[k].esc && string(v.d.decoded(k)) == key {
			return Value{v.d, k + 1}
		}
	}
	return Value{}
}

// Str is a string's text, decoded as fastjson decodes it (nil for a value
// that is not a string).
func (v Value) Str() []byte {
	if v.d == nil || v.node().kind != String {
		return nil
	}
	return v.d.decoded(v.i)
}

// decoded is the text of string node k: its body in place, or its escapes
// decoded once into the Doc's buffer.
func (d *Doc) decoded(k int32) []byte {
	n := &d.nodes[k]
	if !n.esc {
		return d.src[n.start:n.end:n.end]
	}
	if n.dec {
		return d.dec[n.dstart:n.dend:n.dend]
	}
	start := len(d.dec)
	d.dec = unescape(d.dec, d.src[n.start:n.end])
	n = &d.nodes[k]
	n.dstart, n.dend, n.dec = int32(start), int32(len(d.dec)), true
	return d.dec[start:len(d.dec):len(d.dec)]
}

// JSLen is a string's length as a JavaScript string of its decoded text
// would have it (EscapedLen of its body), measured by the parse; 0 for a
// value that is not a string.
func (v Value) JSLen() int64 {
	if v.d == nil || v.node().kind != String {
		return 0
	}
	return int64(v.node().jslen)
}

// Bool reports the value true.
func (v Value) Bool() bool { return v.d != nil && v.node().kind == True }

// Raw is the value's text as written: a string with its quotes.
func (v Value) Raw() []byte {
	if v.d == nil {
		return nil
	}
	n := v.node()
	if n.kind == String {
		return v.d.src[n.start-1 : n.end+1]
	}
	return v.d.src[n.start:n.end]
}

// text is a number's text, in place: fastfloat keeps no part of it
// (its errors quote a copy).
func (v Value) text() string {
	b := v.Raw()
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Int64 reads a number that is a whole int64 (fastfloat.ParseInt64, as
// fastjson's Value.Int64).
func (v Value) Int64() (int64, error) {
	if v.Kind() != Number {
		return 0, strconv.ErrSyntax
	}
	return fastfloat.ParseInt64(v.text())
}

// Float64 reads a number (fastfloat.Parse, as fastjson's Value.Float64).
func (v Value) Float64() (float64, error) {
	if v.Kind() != Number {
		return 0, strconv.ErrSyntax
	}
	return fastfloat.Parse(v.text())
}

// Number is a number read as fastjson's GetFloat64 reads it: its best
// effort, 0 for anything else.
func (v Value) Number() float64 {
	if v.Kind() != Number {
		return 0
	}
	return fastfloat.ParseBestEffort(v.text())
}

// Int is a number read as fastjson's GetInt reads it: the best effort at
// a whole number, 0 for anything else.
func (v Value) Int() int {
	if v.Kind() != Number {
		return 0
	}
	n := fastfloat.ParseInt64BestEffort(v.text())
	if int64(int(n)) != n {
		return 0
	}
	return int(n)
}

// Elems are an array's elements, in order (none for another value).
func (v Value) Elems() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		if v.Kind() != Array {
			return
		}
		nd := v.d.nodes
		for k := v.i + 1; k < nd[v.i].next; k = nd[k].next {
			if !yield(Value{v.d, k}) {
				return
			}
		}
	}
}

// Members are an object's members in order, each key decoded (none for
// another value). A key is valid as long as the value.
func (v Value) Members() iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		if v.Kind() != Object {
			return
		}
		nd := v.d.nodes
		if nd[v.i].dup {
			v.dupMembers(yield)
			return
		}
		for k := v.i + 1; k < nd[v.i].next; k = nd[k+1].next {
			if !yield(v.d.decoded(k), Value{v.d, k + 1}) {
				return
			}
		}
	}
}

// AppendJSON appends the value as compact JSON: strings and keys decoded
// and written again as encoding/json writes them (engine.AppendJSONString),
// numbers and literals as written.
func (v Value) AppendJSON(dst []byte) []byte {
	switch v.Kind() {
	case Object:
		dst = append(dst, '{')
		first := true
		for k, x := range v.Members() {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = x.AppendJSON(dst)
		}
		return append(dst, '}')
	case Array:
		dst = append(dst, '[')
		first := true
		for x := range v.Elems() {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = x.AppendJSON(dst)
		}
		return append(dst, ']')
	case String:
		return appendString(dst, v.Str())
	case None:
		return dst
	}
	return append(dst, v.Raw()...)
}

func appendString(dst, s []byte) []byte { return engine.AppendJSONString(dst, string(s)) }

// unescape appends the decoded text of a string body to dst, as
// fastjson's unescapeStringBestEffort decodes it: an escape it does not
// know, or a \u without four hex digits, is kept as written; a lone
// surrogate stays a \u escape.
func unescape(dst, s []byte) []byte {
	for len(s) > 0 {
		c := s[0]
		if c != '\\' || len(s) == 1 {
			if c == '\\' {
				// A lone backslash at the end: fastjson drops it.
				return dst
			}
			dst = append(dst, c)
			s = s[1:]
			continue
		}
		c, s = s[1], s[2:]
		switch c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			x, ok := hex4(s)
			if !ok {
				dst = append(dst, `\u`...)
				break
			}
			if !utf16.IsSurrogate(rune(x)) {
				dst = utf8.AppendRune(dst, rune(x))
				s = s[4:]
				break
			}
			xs := s[:4]
			s = s[4:]
			if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
				dst = append(dst, `\u`...)
				dst = append(dst, xs...)
				break
			}
			y, ok := hex4(s[2:])
			if !ok {
				dst = append(dst, `\u`...)
				dst = append(dst, xs...)
				break
			}
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(x), rune(y)))
			s = s[6:]
		default:
			dst = append(dst, '\\', c)
		}
	}
	return dst
}

// hex4 reads four hex digits as strconv.ParseUint(s[:4], 16, 16) does.
func hex4(s []byte) (uint16, bool) {
	if len(s) < 4 {
		return 0, false
	}
	x, err := strconv.ParseUint(string(s[:4]), 16, 16)
	return uint16(x), err == nil
}
