package jsonscan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value. The zero Kind is a value that is not
// there (a missing key, an element past the end).
type Kind uint8

// The kinds.
const (
	None Kind = iota
	Null
	Object
	Array
	String
	Number
	True
	False
)

func (k Kind) String() string {
	return [...]string{"none", "null", "object", "array", "string", "number", "true", "false"}[k]
}

// MaxDepth bounds the nesting of objects and arrays, as fastjson's own
// bound does.
const MaxDepth = 300

// node is one value of a Doc's table. The table is in document order: a
// container is followed by its elements (an object by key, value, key,
// value…), each with everything inside it, and next is the index just
// past a node and all it holds, so a reader steps over a member in one
// move.
type node struct {
	// start and end: a string's body, without its quotes; any other
	// value's text, brackets included.
	start, end int32
	next       int32
	// jslen is a string's length as JavaScript measures what it decodes
	// to (see EscapedLen): at most the text's length, so within MaxText.
	jslen int32
	// dstart and dend: an escaped string's decoded text in the Doc's
	// buffer, once decoded (dec).
	dstart, dend int32
	kind         Kind
	// esc: a string with a backslash in it (Str decodes it); an object
	// with such a key. dup: an object with a key written twice (a strict
	// Doc only).
	esc, dec, dup bool
}

// Doc reads JSON texts, reusing its table from one value to the next. It
// is not safe for concurrent use.
type Doc struct {
	src   []byte
	pos   int
	nodes []node
	err   error
	// dec holds the decoded text of escaped strings and keys.
	dec []byte
	// blocks: the block scan the text's strings are read with (asked
	// once a text, not once a string).
	blocks blockLevel
	// Strict reads as JavaScript's JSON.parse reads: the grammar of RFC
	// 8259 exactly (no raw control character in a string, no unknown
	// escape, no NaN, no leading zero), and of a key written twice in an
	// object, the last value (see Dup). Set it before Init or Parse.
	Strict bool
	// dup: the key of the first object key written twice, when the last
	// value read has one (strict only).
	dup    []byte
	hasDup bool
	// keySets: the keys of the objects of many keys being read.
	keySets map[int32]map[string]struct{}
}

// Dup reports whether the value last read has an object with a key
// written twice, and the first such key (decoded). JSON.parse keeps the
// last value of such a key at the place of the first; a strict Doc reads
// it so (At, Get and Members), fastjson and a lenient Doc take the first.
func (d *Doc) Dup() ([]byte, bool) { return d.dup, d.hasDup }

// Init starts reading the JSON values of b, in place: b must not change
// while the Doc's values are read. A text longer than MaxText is not read:
// Next reports false and Err says why.
func (d *Doc) Init(b []byte) {
	d.src, d.pos, d.err = b, 0, nil
	d.nodes, d.dec = d.nodes[:0], d.dec[:0]
	d.dup, d.hasDup = d.dup[:0], false
	clear(d.keySets)
	d.blocks = noBlocks
	if len(b) >= 64 {
		d.blocks = blocksHere()
	}
	if len(b) > maxText {
		d.err = fmt.Errorf("a JSON text of %d bytes is over the %d a Doc reads", len(b), maxText)
	}
}

// MaxText bounds the text a Doc reads: its table holds offsets as 32-bit
// numbers.
const MaxText = 1<<31 - 1

// maxText is MaxText, lowered by a test.
var maxText = MaxText

var errEnd = errors.New("end of text")

// Next reads the next value of the text (after whitespace), reporting
// false at the end of the text or at an error (Err tells which). The
// values of the previous Next are no longer valid.
func (d *Doc) Next() bool {
	if d.err != nil {
		return false
	}
	d.pos = skipWS(d.src, d.pos)
	if d.pos == len(d.src) {
		d.err = errEnd
		return false
	}
	d.nodes, d.dec = d.nodes[:0], d.dec[:0]
	d.dup, d.hasDup = d.dup[:0], false
	clear(d.keySets)
	end, err := d.value(d.pos, 0)
	if err != nil {
		d.err = err
		return false
	}
	d.pos = end
	return true
}

// Value is the value Next read last (the zero Value when Next reported
// false: a value it failed to read is not half there).
func (d *Doc) Value() Value {
	if d.err != nil || len(d.nodes) == 0 {
		return Value{}
	}
	return Value{d, 0}
}

// Err is the error that stopped Next (nil at the end of the text).
func (d *Doc) Err() error {
	if d.err == errEnd {
		return nil
	}
	return d.err
}

// Parse reads b as exactly one JSON value, whitespace around it allowed:
// it accepts what fastjson's Parser.Parse accepts (its error texts are
// Next's, without the rest of the text fastjson adds to them).
func (d *Doc) Parse(b []byte) (Value, error) {
	if d.Init(b); d.err != nil {
		return Value{}, d.err
	}
	d.pos = skipWS(b, 0)
	end, err := d.value(d.pos, 0)
	if err != nil {
		d.err = err
		return Value{}, fmt.Errorf("cannot parse JSON: %s", err)
	}
	if end = skipWS(b, end); end < len(b) {
		return Value{}, fmt.Errorf("unexpected tail: %s", quoteTail(b[end:]))
	}
	return Value{d, 0}, nil
}

// maxQuoted bounds the text an error quotes: fastjson quotes the whole
// rest of its input, which on a session file's line can be megabytes,
// kept in every problem reported.
const maxQuoted = 32

func quoteTail(b []byte) string {
	if len(b) > maxQuoted {
		return strconv.Quote(string(b[:maxQuoted])) + "…"
	}
	return strconv.Quote(string(b))
}

func skipWS(s []byte, i int) int {
	for i < len(s) && s[i] <= 0x20 {
		switch s[i] {
		case ' ', '\n', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (d *Doc) push(k Kind, start int) int {
	d.add(k, start, 0, 0, 0, false)
	return len(d.nodes) - 1
}

// add appends a node, each field stored in place: built as a value and
// copied, the node was written a field at a time to the stack and read
// back sixteen bytes at a time, a load the processor cannot forward from
// those stores, which stalled the parse at every node (perf annotate:
// half of object's time on the copy).
func (d *Doc) add(k Kind, start, end, next int, jslen int32, esc bool) {
	n := len(d.nodes)
	if n == cap(d.nodes) {
		d.grow()
	}
	d.nodes = d.nodes[:n+1]
	nd := &d.nodes[n]
	nd.start, nd.end, nd.next, nd.jslen = int32(start), int32(end), int32(next), jslen
	nd.kind, nd.esc, nd.dec = k, esc, false
}

// grow makes room for more nodes, out of add's way.
//
//go:noinline
func (d *Doc) grow() { d.nodes = slices.Grow(d.nodes, 1) }

// value reads the value at s[i:] and returns where it ends. The error
// texts are fastjson's, so a line reported as not JSON reads the same
// whichever reader met it.
func (d *Doc) value(i, depth int) (int, error) {
	s := d.src
	if i >= len(s) {
		return i, errors.New("cannot parse empty string")
	}
	depth++
	if depth > MaxDepth {
		return i, fmt.Errorf("too big depth for the nested JSON; it exceeds %d", MaxDepth)
	}
	switch c := s[i]; c {
	case '{':
		end, err := d.object(i, depth)
		if err != nil {
			return end, fmt.Errorf("cannot parse object: %s", err)
		}
		return end, nil
	case '[':
		end, err := d.array(i, depth)
		if err != nil {
			return end, fmt.Errorf("cannot parse array: %s", err)
		}
		return end, nil
	case '"':
		return d.str(s, i)
	case 't', 'f', 'n':
		lit, kind := "true", True
		if c == 'f' {
			lit, kind = "false", False
		} else if c == 'n' {
			lit, kind = "null", Null
		}
		if len(s)-i < len(lit) || string(s[i:i+len(lit)]) != lit {
			if c == 'n' && !d.Strict && len(s)-i >= 3 && strings.EqualFold(string(s[i:i+3]), "nan") {
				d.leaf(Number, i, i+3)
				return i + 3, nil
			}
			return i, fmt.Errorf("unexpected value found: %s", quoteTail(s[i:]))
		}
		d.leaf(kind, i, i+len(lit))
		return i + len(lit), nil
	}
	end, err := rawNumber(s, i)
	if err == nil && d.Strict {
		err = strictNumber(s[i:end])
	}
	if err != nil {
		return end, fmt.Errorf("cannot parse number: %s", err)
	}
	d.leaf(Number, i, end)
	return end, nil
}

// strictNumber checks a number's text against JSON's grammar:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, as JSON.parse does (no
// leading zero, no bare point, no sign but a leading minus, no inf or
// nan).
func strictNumber(b []byte) error {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return fmt.Errorf("not a JSON number: %s", quoteTail(b))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return fmt.Errorf("not a JSON number: %s", quoteTail(b))
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return fmt.Errorf("not a JSON number: %s", quoteTail(b))
		}
	}
	if i != len(b) {
		return fmt.Errorf("not a JSON number: %s", quoteTail(b))
	}
	return nil
}

func (d *Doc) leaf(k Kind, start, end int) {
	d.add(k, start, end, len(d.nodes)+1, 0, false)
}

func (d *Doc) close(k, end int) int {
	nd := &d.nodes[k]
	nd.end, nd.next = int32(end), int32(len(d.nodes))
	return end
}

func (d *Doc) array(i, depth int) (int, error) {
	s := d.src
	k := d.push(Array, i)
	i = skipWS(s, i+1)
	if i == len(s) {
		return i, errors.New("missing ']'")
	}
	if s[i] == ']' {
		return d.close(k, i+1), nil
	}
	for {
		i = skipWS(s, i)
		end, err := d.value(i, depth)
		if err != nil {
			return end, fmt.Errorf("cannot parse array value: %s", err)
		}
		// What follows a member is read in place here and in object: as
		// a shared function, its call cost 1.4% of a replay's
		// instructions (callgrind, six sessions of the realistic corpus).
		i = skipWS(s, end)
		if i == len(s) {
			return i, errors.New("unexpected end of array")
		}
		switch s[i] {
		case ',':
			i++
		case ']':
			return d.close(k, i+1), nil
		default:
			return i, errors.New("missing ',' after array value")
		}
	}
}

// object reads the object at s[i]. The session files' JSON is compact,
// so each step first tests for the byte that follows at once (a key's
// quote, the colon, a string value's quote, a comma or the brace) and
// skips whitespace only where that byte is not there; a string value is
// read in place, as value reads it, without value's call.
func (d *Doc) object(i, depth int) (int, error) {
	s := d.src
	k := d.push(Object, i)
	i = skipWS(s, i+1)
	if i == len(s) {
		return i, errors.New("missing '}'")
	}
	if s[i] == '}' {
		return d.close(k, i+1), nil
	}
	var seen uint64
	for {
		if i >= len(s) || s[i] != '"' {
			if i = skipWS(s, i); i == len(s) || s[i] != '"' {
				return i, errors.New(`cannot find opening '"" for object key`)
			}
		}
		end, esc, ok := scanKey(s, i+1)
		if !ok {
			return len(s), errors.New(`cannot parse object key: missing closing '"'`)
		}
		// scanKey reports a key with a control character as escaped, so
		// a key that is not is strict JSON already.
		if esc && d.Strict && !strictBody(s[i+1:end], esc) {
			return end, errors.New("cannot parse object key: a raw control character or an unknown escape")
		}
		key := len(d.nodes)
		d.add(String, i+1, end, key+1, 0, esc)
		if esc {
			d.nodes[k].esc = true
		}
		if d.Strict {
			// Keys are compared only when one may repeat: every key sets
			// a bit of seen picked by its length and end bytes, and a key
			// whose bit is set, or an object with an escaped key (whose
			// text is not its bytes), is compared with the keys before.
			bit := keyBit(s[i+1 : end])
			if seen&bit != 0 || d.nodes[k].esc {
				d.checkDup(int32(k), int32(key))
			}
			seen |= bit
		}
		if i = end + 1; i >= len(s) || s[i] != ':' {
			if i = skipWS(s, i); i == len(s) || s[i] != ':' {
				return i, errors.New("missing ':' after object key")
			}
		}
		if i++; i < len(s) && s[i] == '"' && depth < MaxDepth {
			end, err := d.str(s, i)
			if err != nil {
				return end, fmt.Errorf("cannot parse object value: %s", err)
			}
			i = end
		} else {
			end, err := d.value(skipWS(s, i), depth)
			if err != nil {
				return end, fmt.Errorf("cannot parse object value: %s", err)
			}
			i = end
		}
		if i < len(s) {
			switch s[i] {
			case ',':
				i++
				continue
			case '}':
				return d.close(k, i+1), nil
			}
		}
		i = skipWS(s, i)
		if i == len(s) {
			return i, errors.New("unexpected end of object")
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			return d.close(k, i+1), nil
		default:
			return i, errors.New("missing ',' after object value")
		}
	}
}

// str reads the string at s[i] (its opening quote) into the table, and
// returns where it ends.
func (d *Doc) str(s []byte, i int) (int, error) {
	end, n, esc, ok := scanString(s, i+1, d.blocks)
	if !ok {
		return len(s), errors.New(`cannot parse string: missing closing '"'`)
	}
	// The scans send a string with a raw control character or an escape
	// they do not take in stride to EscapedLen's two passes, marked by
	// n < 0 when the body is not strict JSON; a lenient Doc reads on.
	if n < 0 {
		if d.Strict {
			return end, errors.New("cannot parse string: a raw control character or an unknown escape")
		}
		n = EscapedLen(s[i+1 : end])
	}
	k := len(d.nodes)
	d.add(String, i+1, end, k+1, clamp32(n), esc)
	return end + 1, nil
}

// rawNumber finds the end of the number at s[i:] as fastjson scans one:
// a run of digits, signs, points and exponents, or inf and nan in any
// case, with or without a sign (fastjson's readers parse the text later).
func rawNumber(s []byte, i int) (int, error) {
	for j := i; j < len(s); j++ {
		c := s[j]
		if numberByte[c] {
			continue
		}
		if j == i || j == i+1 && (s[i] == '-' || s[i] == '+') {
			if len(s)-j >= 3 {
				if w := string(s[j : j+3]); strings.EqualFold(w, "inf") || strings.EqualFold(w, "nan") {
					return j + 3, nil
				}
			}
			return i, fmt.Errorf("unexpected char: %s", quoteTail(s[i:i+1]))
		}
		return j, nil
	}
	return len(s), nil
}

// numberByte: the bytes of a number's text, as rawNumber scans it. One
// test a byte, where the six comparisons were a branch each.
var numberByte = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'.': true, '-': true, '+': true, 'e': true, 'E': true,
}

func clamp32(n int64) int32 {
	if n > 1<<31-1 {
		return 1<<31 - 1
	}
	if n < -1<<31 {
		return -1 << 31
	}
	return int32(n)
}
