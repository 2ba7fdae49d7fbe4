package engine

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// The common line — a flat object of plain members, as every host sends
// its events — is read in one pass over its bytes, without building
// fastjson's tree and reading it back. Anything else (an escape, a nested
// value other than {}, more than flatMax members, a problem of any kind)
// goes to the general path, which is then the one to decide and to report:
// the fast path only ever accepts a line the general path accepts, with
// the same facts (TestFlatDecodesAsTheGeneralPath, FuzzFlatDecoder).

// flatMax bounds the members the fast path records.
const flatMax = 48

type flatKind uint8

const (
	flatTrue flatKind = iota
	flatFalse
	flatNull
	flatNumber      // up to 15 digits, no sign, fraction or exponent
	flatOtherNumber // any other JSON number
	flatString
	flatEmptyObject
)

// flatMember is one member: key and value as spans of the line (a
// string's without its quotes), and where the value starts.
type flatMember struct {
	k0, k1, v0, v1, start int32
	kind                  flatKind
}

// flat decodes line if it is a plain flat object; ok is false when the
// general path must read it.
func (d *Decoder) flat(line []byte) (ev Event, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return Event{}, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return Event{}, false // {}: the general path says what is missing
	}
	// Hosts send "event" first: then each fact can be read as it is met,
	// in one pass. Any other order, or a second "event", is read in two.
	if kind, j, ok := leadingEvent(line, i); ok {
		if ev, ok := d.flatInOrder(line, j, kind); ok {
			return ev, true
		}
	}
	return d.flatAnyOrder(line, i)
}

// leadingEvent reads an "event" member with a known plain name at i, and
// returns the event kind and where the member ends.
func leadingEvent(line []byte, i int) (kind, end int, ok bool) {
	const key = `"event"`
	if len(line)-i < len(key) || string(line[i:i+len(key)]) != key {
		return 0, 0, false
	}
	i = skipSpace(line, i+len(key))
	if i >= len(line) || line[i] != ':' {
		return 0, 0, false
	}
	i = skipSpace(line, i+1)
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false
	}
	v0 := i + 1
	i = plainRun(line, i+1)
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false
	}
	kind, ok = kindNamed(line[v0:i])
	return kind, i + 1, ok
}

// kindNamed is kinds[string(name)] by a look at the few events whose
// names have name's length: cheaper than hashing, at every line.
func kindNamed(name []byte) (int, bool) {
	if len(name) < len(kindsByLength) {
		for _, k := range kindsByLength[len(name)] {
			if contract.Events[k].Name == string(name) {
				return k, true
			}
		}
	}
	return 0, false
}

// kindsByLength lists the event kinds by the length of their names, cut
// from one array: it is made at every start of the binary.
var kindsByLength = func() [][]int {
	n := 0
	for _, e := range contract.Events {
		n = max(n, len(e.Name)+1)
	}
	all, out := make([]int, 0, len(contract.Events)), make([][]int, n)
	for length := range out {
		start := len(all)
		for k, e := range contract.Events {
			if len(e.Name) == length {
				all = append(all, k)
			}
		}
		out[length] = all[start:len(all):len(all)]
	}
	return out
}()

// flatInOrder reads the members after a leading "event" member of the
// given kind, each fact as it comes; ok is false for anything the
// two-pass read must see (another "event" among them) or refuse.
func (d *Decoder) flatInOrder(line []byte, i, kind int) (ev Event, ok bool) {
	def, all, facts, packed := d.start(kind, false)
	defs, keys := defaults[kind], factKeys[kind]
	// Facts before filled hold a value read or their default; the ones a
	// line leaves out get their defaults as the next one read passes them.
	next, filled := 0, 0 // hosts send facts in contract order: look at next first
	for members := 1; ; members++ {
		if i+1 < len(line) && line[i] == ',' && line[i+1] == '"' {
			i++ // the common case, as hosts write: no space between members
		} else {
			j, end, ok := afterMember(line, i)
			if !ok {
				return Event{}, false
			}
			if i = j; end {
				break
			}
			if i >= len(line) || line[i] != '"' {
				return Event{}, false
			}
		}
		if members == flatMax {
			return Event{}, false
		}
		// The key is whatever comes before the next quote, as in
		// flatAnyOrder; the fact expected next is tried first, in place,
		// with the colon after it when its key holds one.
		k0, fi := i+1, -1
		if next < len(keys) && keys[next].at(line, k0) {
			fi, i = next, k0+len(keys[next].pat)
			if !keys[next].colon {
				if i = skipSpace(line, i); i >= len(line) || line[i] != ':' {
					return Event{}, false
				}
				i++
			}
		} else {
			n := bytes.IndexByte(line[k0:], '"')
			if n < 0 {
				return Event{}, false
			}
			i = k0 + n
			// "event" names no fact: a second one is flatAnyOrder's.
			if fi = factIndex(all, line[k0:i]); fi < 0 {
				return Event{}, false
			}
			if i = skipSpace(line, i+1); i >= len(line) || line[i] != ':' {
				return Event{}, false
			}
			i++
		}
		if fi > filled {
			copy(facts[filled:fi], defs[filled:fi])
		}
		filled = max(filled, fi+1)
		// A bool, and an int of plain digits, are read here, without the
		// call: nine of the ten common facts are one or the other.
		i = skipSpace(line, i)
		switch f := &all[fi]; {
		case f.Type == contract.Bool && len(line)-i >= 5:
			var b bool
			switch binary.LittleEndian.Uint32(line[i:]) {
			case 't' | 'r'<<8 | 'u'<<16 | 'e'<<24:
				b, i = true, i+4
			case 'f' | 'a'<<8 | 'l'<<16 | 's'<<24:
				if line[i+4] != 'e' {
					return Event{}, false
				}
				i += 5
			default:
				return Event{}, false
			}
			facts[fi] = lang.Value{Bool: b}
			packed.SetBit(fi, b)
		case f.Type == contract.Int && i < len(line) && '1' <= line[i] && line[i] <= '9':
			// As readFact's short plain integer: no sign, no leading
			// zero, at most 15 digits; at least 1, so at least any int
			// fact's least value. A fraction or an exponent after the
			// digits is no member's end, which sends the line on.
			n, j := plainDigits(line, i)
			if j-i > 15 {
				if i, ok = d.readFact(f, fi, line, i, &facts[fi], &packed); !ok {
					return Event{}, false
				}
				break
			}
			facts[fi] = lang.Value{Num: float64(n)}
			packed.SetCode(fi, float64(n))
			i = j
		default:
			if i, ok = d.readFact(f, fi, line, i, &facts[fi], &packed); !ok {
				return Event{}, false
			}
		}
		next = fi + 1
	}
	if skipSpace(line, i+1) != len(line) {
		return Event{}, false
	}
	if filled < len(facts) {
		copy(facts[filled:], defs[filled:])
	}
	return Event{def: def, kind: kind, facts: facts, packed: packed}, true
}

// flatAnyOrder reads the members from i in two passes: their spans first,
// then, knowing the event from the last "event" member, the facts.
func (d *Decoder) flatAnyOrder(line []byte, i int) (ev Event, ok bool) {
	ms := d.members[:0]
	for {
		if len(ms) == flatMax || i >= len(line) || line[i] != '"' {
			return Event{}, false
		}
		// A key is accepted only if it names a fact or "event", and no
		// name holds a quote, a backslash or a control character: the
		// key is whatever comes before the next quote.
		k0 := int32(i + 1)
		n := bytes.IndexByte(line[i+1:], '"')
		if n < 0 {
			return Event{}, false
		}
		i += 1 + n
		k1 := int32(i)
		i = skipSpace(line, i+1)
		if i >= len(line) || line[i] != ':' {
			return Event{}, false
		}
		v := skipSpace(line, i+1)
		m, j, ok := scanValue(line, v)
		if !ok {
			return Event{}, false
		}
		m.k0, m.k1, m.start = k0, k1, int32(v)
		ms = append(ms, m)
		j, end, ok := afterMember(line, j)
		if !ok {
			return Event{}, false
		}
		if i = j; end {
			break
		}
	}
	d.members = ms
	if skipSpace(line, i+1) != len(line) {
		return Event{}, false
	}
	// The last "event" member counts, as on the general path.
	name := -1
	for j := range ms {
		if string(line[ms[j].k0:ms[j].k1]) == "event" {
			name = j
		}
	}
	if name < 0 || ms[name].kind != flatString {
		return Event{}, false
	}
	kind, found := kinds[string(line[ms[name].v0:ms[name].v1])]
	if !found {
		return Event{}, false
	}
	def, all, facts, packed := d.start(kind, true)
	next := 0 // hosts send facts in contract order: look there first
	for j := range ms {
		m := ms[j]
		key := line[m.k0:m.k1]
		if j == name || string(key) == "event" {
			continue
		}
		fi := -1
		if next < len(all) && all[next].Name == string(key) {
			fi = next
		} else if fi = factIndex(all, key); fi < 0 {
			return Event{}, false
		}
		next = fi + 1
		if _, ok := d.readFact(&all[fi], fi, line, int(m.start), &facts[fi], &packed); !ok {
			return Event{}, false
		}
	}
	return Event{def: def, kind: kind, facts: facts, packed: packed}, true
}

// afterMember reads what follows a member's value at i: the object's
// closing brace (end, at j), or a comma and the space after it (the next
// member at j); ok is false for anything else.
func afterMember(line []byte, i int) (j int, end, ok bool) {
	i = skipSpace(line, i)
	if i >= len(line) {
		return 0, false, false
	}
	switch line[i] {
	case '}':
		return i, true, true
	case ',':
		return skipSpace(line, i+1), false, true
	}
	return 0, false, false
}

// start returns an event kind's contract, its facts, the decoder's facts
// (set to their defaults if fill), and the defaults packed.
func (d *Decoder) start(kind int, fill bool) (def *contract.Event, all []contract.Fact, facts []lang.Value, packed lang.Packed) {
	all = allFacts[kind]
	if cap(d.facts) < len(all) {
		d.facts = make([]lang.Value, len(all), maxFacts)
		d.last = make([]string, maxFacts)
		d.errs = make([]error, maxFacts)
	}
	facts, d.def = d.facts[:len(all)], &contract.Events[kind]
	if fill {
		copy(facts, defaults[kind])
	}
	return &contract.Events[kind], all, facts, defaultPacked[kind]
}

// scanValue reads the member value at i: its kind and span (a string's
// without its quotes), and where it ends.
func scanValue(line []byte, i int) (m flatMember, end int, ok bool) {
	if i >= len(line) {
		return m, 0, false
	}
	switch c := line[i]; {
	case c == '"':
		m.kind, m.v0 = flatString, int32(i+1)
		i = plainRun(line, i+1)
		if i >= len(line) || line[i] != '"' {
			return m, 0, false
		}
		m.v1 = int32(i)
		return m, i + 1, true
	case c == 't' || c == 'f' || c == 'n':
		word, kind := "true", flatTrue
		if c == 'f' {
			word, kind = "false", flatFalse
		} else if c == 'n' {
			word, kind = "null", flatNull
		}
		if len(line)-i < len(word) || string(line[i:i+len(word)]) != word {
			return m, 0, false
		}
		m.kind, m.v0, m.v1 = kind, int32(i), int32(i+len(word))
		return m, i + len(word), true
	case c == '-' || ('0' <= c && c <= '9'):
		j := i
		for j < len(line) && '0' <= line[j] && line[j] <= '9' {
			j++
		}
		m.kind = flatNumber
		if j == i || j-i > 15 || (line[i] == '0' && j-i > 1) || (j < len(line) && numberByte[line[j]]) {
			// Not a short plain integer: a sign, a fraction, an
			// exponent, or more digits.
			for j < len(line) && numberByte[line[j]] {
				j++
			}
			if !strictNumber(line[i:j]) {
				return m, 0, false
			}
			m.kind = flatOtherNumber
		}
		m.v0, m.v1 = int32(i), int32(j)
		return m, j, true
	case c == '{':
		i = skipSpace(line, i+1)
		if i >= len(line) || line[i] != '}' {
			return m, 0, false
		}
		m.kind = flatEmptyObject
		return m, i + 1, true
	}
	return m, 0, false
}

// readFact reads fact fi's value at i as the general path would, and
// returns where it ends; false if the general path must read the line (to
// accept it or to say what is wrong). The value is read by the fact's
// type, so a member's bytes are looked at once, and only what the type
// can change in packed is set: a fact's bit is its Bool, which only a
// bool fact's values (its default among them) set, and its code is its
// Num, which only an int's or an enum's values set.
//
// f is fact fi of the event kind d.def, and the value goes to dst and
// packed: most of a line's facts are read here, and fewer arguments make
// the cheaper call.
func (d *Decoder) readFact(f *contract.Fact, fi int, line []byte, i int, dst *lang.Value, packed *lang.Packed) (end int, ok bool) {
	if i >= len(line) {
		return 0, false
	}
	var v lang.Value
	switch f.Type {
	case contract.Bool:
		switch {
		case len(line)-i >= 4 && string(line[i:i+4]) == "true":
			v.Bool = true
			i += 4
		case len(line)-i >= 5 && string(line[i:i+5]) == "false":
			i += 5
		default:
			return 0, false
		}
		packed.SetBit(fi, v.Bool)
	case contract.Int:
		n, j := plainDigits(line, i)
		if j == i || j-i > 15 || (line[i] == '0' && j-i > 1) || (j < len(line) && numberByte[line[j]]) {
			// Not a short plain integer: a sign, a fraction, an
			// exponent, or more digits.
			for j < len(line) && numberByte[line[j]] {
				j++
			}
			if !strictNumber(line[i:j]) {
				return 0, false
			}
			v.Num = numberOf(line[i:j])
			if checkFact(d.def, f, v) != nil {
				return 0, false
			}
		} else {
			// Finite, whole and within 2^53: checkFact has only the
			// least value left to check.
			if float64(n) < intMin(f) {
				return 0, false
			}
			v.Num = float64(n)
		}
		packed.SetCode(fi, v.Num)
		i = j
	case contract.String:
		if line[i] != '"' {
			return 0, false
		}
		v0 := i + 1
		i = plainRun(line, i+1)
		if i >= len(line) || line[i] != '"' {
			return 0, false
		}
		b := line[v0:i]
		i++
		if len(f.Enum) > 0 {
			code := -1
			for e, s := range f.Enum {
				if s == string(b) {
					code = e
					break
				}
			}
			if code < 0 {
				return 0, false
			}
			v = lang.Value{Str: f.Enum[code], Num: float64(code)}
			packed.SetCode(fi, v.Num)
			break
		}
		if d.last[fi] != string(b) {
			d.last[fi] = validUTF8(b)
		}
		v.Str = d.last[fi]
	case contract.Object:
		switch {
		case len(line)-i >= 4 && string(line[i:i+4]) == "null":
			i += 4
		case line[i] == '{':
			// {} holds no number for checkFact to refuse.
			if i = skipSpace(line, i+1); i >= len(line) || line[i] != '}' {
				return 0, false
			}
			v.X = map[string]any{}
			i++
		default:
			return 0, false
		}
	default:
		return 0, false
	}
	*dst = v
	return i, true
}

// factKey is a fact's key as the fast path matches it against the fact it
// expects next: the name, its closing quote, and the colon when the three
// fit in 16 bytes (pat), held as two little-endian words and the masks of
// the bytes they hold, so that a match is two loads and compares instead
// of a call.
type factKey struct {
	w0, w1, m0, m1 uint64
	pat            string // for a name of 15 bytes or more, or a line's last bytes
	colon          bool   // pat ends with the colon
}

func newFactKey(name string) factKey { return newFactKeyIn(name, name+`":`) }

// newFactKeyIn is newFactKey with the name and `":` after it given as
// pats, so that the keys made at every start can share one string.
func newFactKeyIn(name, pats string) factKey {
	k := factKey{pat: pats[:len(name)+2], colon: true}
	if len(k.pat) > 16 {
		k.pat, k.colon = pats[:len(name)+1], false
	}
	if len(k.pat) > 16 {
		return k
	}
	var b [16]byte
	copy(b[:], k.pat)
	for i := range k.pat {
		if i < 8 {
			k.m0 |= 0xff << (8 * i)
		} else {
			k.m1 |= 0xff << (8 * (i - 8))
		}
	}
	k.w0, k.w1 = binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
	return k
}

// at reports whether line holds the key's pattern at i.
func (k *factKey) at(line []byte, i int) bool {
	if k.m0 != 0 && i >= 0 && len(line)-i >= 16 {
		b := line[i : i+16] // one bounds check for both words
		return (binary.LittleEndian.Uint64(b)^k.w0)&k.m0 == 0 &&
			(binary.LittleEndian.Uint64(b[8:])^k.w1)&k.m1 == 0
	}
	return i >= 0 && len(line)-i >= len(k.pat) && string(line[i:i+len(k.pat)]) == k.pat
}

// plainDigits reads the run of decimal digits at i: its value, and where
// the run ends, or where reading stopped after 16 digits (for a caller
// that refuses more than 15). Eight digits are tested and converted at a
// time while eight bytes are left: a digit is a byte whose high nibble is
// 3 and stays 3 with 6 added.
func plainDigits(line []byte, i int) (n int64, j int) {
	j = i
	for len(line)-j >= 8 && j-i < 16 {
		x := binary.LittleEndian.Uint64(line[j : j+8])
		const hi, six, threes = 0xF0F0F0F0F0F0F0F0, 0x0606060606060606, 0x3333333333333333
		k := 8
		if other := ((x & hi) | ((x+six)&hi)>>4) ^ threes; other != 0 {
			k = bits.TrailingZeros64(other) / 8 // the first byte that is not a digit
		}
		if k == 0 {
			return n, j
		}
		// The k digits into the high bytes: the low ones read as leading
		// zeros. Then pairs, fours and eights of digits are added up.
		x = x << (8 * (8 - k)) & 0x0F0F0F0F0F0F0F0F
		x = x * (10<<8 + 1) >> 8
		x = (x & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
		x = (x & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
		n, j = n*pow10[k]+int64(x), j+k
		if k < 8 {
			return n, j
		}
	}
	for ; j < len(line) && j-i < 16 && '0' <= line[j] && line[j] <= '9'; j++ {
		n = n*10 + int64(line[j]-'0')
	}
	return n, j
}

var pow10 = [9]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// factKeys holds each event kind's facts' keys, in allFacts' order, in
// one array, their patterns cut from one string: it is made at every
// start of the binary.
var factKeys = func() [][]factKey {
	n, size := 0, 0
	for _, all := range allFacts {
		n += len(all)
		for _, f := range all {
			size += len(f.Name) + 2
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, all := range allFacts {
		for _, f := range all {
			b.WriteString(f.Name)
			b.WriteString(`":`)
		}
	}
	pats := b.String()
	keys := make([]factKey, 0, n)
	out := make([][]factKey, len(allFacts))
	for kind, all := range allFacts {
		start := len(keys)
		for _, f := range all {
			keys = append(keys, newFactKeyIn(f.Name, pats))
			pats = pats[len(f.Name)+2:]
		}
		out[kind] = keys[start:len(keys):len(keys)]
	}
	return out
}()

// defaultPacked is each event kind's defaults packed.
var defaultPacked = func() []lang.Packed {
	out := make([]lang.Packed, len(defaults))
	for k, d := range defaults {
		out[k] = lang.Pack(d)
	}
	return out
}()

func skipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // the common case: no space at all
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString marks the bytes the fast path reads in a key or a string as
// they are: all but control characters, the quote and the backslash. UTF-8
// is checked when a string value is made; a key that is not plain ASCII
// names no fact, which the general path then reports.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns where the run of plain bytes (plainString) from i
// ends: eight bytes are tested at a time while eight are left. In each
// test, the lowest byte flagged is the first quote, backslash or control
// character, exactly: a flag above it may be false (a borrow), never one
// below.
func plainRun(line []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; len(line)-i >= 8; i += 8 {
		x := binary.LittleEndian.Uint64(line[i : i+8])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		stop := ((q - ones) &^ q) | ((bs - ones) &^ bs) | ((x - ones*0x20) &^ x)
		if stop &= highs; stop != 0 {
			return i + bits.TrailingZeros64(stop)/8
		}
	}
	for i < len(line) && plainString[line[i]] {
		i++
	}
	return i
}

// numberByte marks the bytes a JSON number may hold.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()
