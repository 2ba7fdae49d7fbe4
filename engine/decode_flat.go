package engine

import (
	"bytes"

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
// string's without its quotes).
type flatMember struct {
	k0, k1, v0, v1 int32
	kind           flatKind
}

// flat decodes line if it is a plain flat object; ok is false when the
// general path must read it.
func (d *Decoder) flat(line []byte) (ev Event, ok bool) {
	ms := d.members[:0]
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return Event{}, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return Event{}, false // {}: the general path says what is missing
	}
	for {
		if len(ms) == flatMax || i >= len(line) || line[i] != '"' {
			return Event{}, false
		}
		var m flatMember
		// A key is accepted only if it names a fact or "event", and no
		// name holds a quote, a backslash or a control character: the
		// key is whatever comes before the next quote.
		m.k0 = int32(i + 1)
		n := bytes.IndexByte(line[i+1:], '"')
		if n < 0 {
			return Event{}, false
		}
		i += 1 + n
		m.k1 = int32(i)
		i = skipSpace(line, i+1)
		if i >= len(line) || line[i] != ':' {
			return Event{}, false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) {
			return Event{}, false
		}
		switch c := line[i]; {
		case c == '"':
			m.kind, m.v0 = flatString, int32(i+1)
			for i++; i < len(line) && plainString[line[i]]; i++ {
			}
			if i >= len(line) || line[i] != '"' {
				return Event{}, false
			}
			m.v1 = int32(i)
			i++
		case c == 't' || c == 'f' || c == 'n':
			word, kind := "true", flatTrue
			if c == 'f' {
				word, kind = "false", flatFalse
			} else if c == 'n' {
				word, kind = "null", flatNull
			}
			if len(line)-i < len(word) || string(line[i:i+len(word)]) != word {
				return Event{}, false
			}
			m.kind, m.v0, m.v1 = kind, int32(i), int32(i+len(word))
			i += len(word)
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
					return Event{}, false
				}
				m.kind = flatOtherNumber
			}
			m.v0, m.v1 = int32(i), int32(j)
			i = j
		case c == '{':
			i = skipSpace(line, i+1)
			if i >= len(line) || line[i] != '}' {
				return Event{}, false
			}
			m.kind = flatEmptyObject
			i++
		default:
			return Event{}, false
		}
		ms = append(ms, m)
		i = skipSpace(line, i)
		if i >= len(line) {
			return Event{}, false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return Event{}, false
		}
		i = skipSpace(line, i+1)
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
	def := &contract.Events[kind]
	all := allFacts[kind]
	if cap(d.facts) < len(all) {
		d.facts = make([]lang.Value, len(all), maxFacts)
		d.last = make([]string, maxFacts)
		d.errs = make([]error, maxFacts)
	}
	facts := d.facts[:len(all)]
	copy(facts, defaults[kind])
	packed := defaultPacked[kind]
	next := 0 // hosts send facts in contract order: look there first
	for j := range ms {
		m := &ms[j]
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
		f := &all[fi]
		var v lang.Value
		switch f.Type {
		case contract.Bool:
			switch m.kind {
			case flatTrue:
				v.Bool = true
			case flatFalse:
			default:
				return Event{}, false
			}
		case contract.Int:
			switch m.kind {
			case flatNumber:
				// Finite, whole and within 2^53: checkFact has only the
				// least value left to check.
				n := int64(0)
				for _, c := range line[m.v0:m.v1] {
					n = n*10 + int64(c-'0')
				}
				if float64(n) < intMin(f) {
					return Event{}, false
				}
				v.Num = float64(n)
			case flatOtherNumber:
				v.Num = numberOf(line[m.v0:m.v1])
				if checkFact(def, f, v) != nil {
					return Event{}, false
				}
			default:
				return Event{}, false
			}
		case contract.String:
			if m.kind != flatString {
				return Event{}, false
			}
			b := line[m.v0:m.v1]
			if len(f.Enum) > 0 {
				code := -1
				for e, s := range f.Enum {
					if s == string(b) {
						code = e
						break
					}
				}
				if code < 0 {
					return Event{}, false
				}
				v = lang.Value{Str: f.Enum[code], Num: float64(code)}
				break
			}
			if d.last[fi] != string(b) {
				d.last[fi] = validUTF8(b)
			}
			v.Str = d.last[fi]
		case contract.Object:
			switch m.kind {
			case flatNull:
			case flatEmptyObject: // holds no number for checkFact to refuse
				v.X = map[string]any{}
			default:
				return Event{}, false
			}
		}
		facts[fi] = v
		packed.Set(fi, v)
	}
	return Event{def: def, kind: kind, facts: facts, packed: packed}, true
}

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

// numberByte marks the bytes a JSON number may hold.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()
