package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/valyala/fastjson"
)

// Decoder reads events from JSON straight into the engine's fact slots:
// no map, no reflection, and after the first few events no allocation
// (a string fact that repeats the previous event's value reuses it). It
// is the one JSON event reader of eval, the stdio server and replay.
//
// The Event returned by Decode shares the decoder's buffers until the
// next Decode; Clone it to keep it. A Decoder is not safe for concurrent
// use.
type Decoder struct {
	p     fastjson.Parser
	facts []lang.Value
	// last holds, per fact position, the last string decoded there.
	last []string
	// per event: each fact's problem (the first in contract order is
	// reported) and the least unknown fact name, as NewEvent reports them.
	errs    []error
	unknown string
	num     []byte // a number's text
	// strict is set while Decode reads a line fastjson parsed without
	// validating: every scalar read is then checked against JSON's
	// grammar, and a failure is reported as malformed JSON.
	strict  bool
	invalid bool
	members []flatMember    // the fast path's (decode_flat.go)
	def     *contract.Event // the event the fast path reads
}

// Decode reads one event: a flat JSON object with "event" and facts.
// Omitted facts take the contract's defaults; malformed JSON, more than
// one value, an unknown event or fact, a fact of the wrong type and a bad
// fact (checkFact) are errors.
//
// fastjson's parser checks the structure but accepts some malformed
// scalars (NaN, 01, raw control characters in strings). Rather than
// validating every line in a second pass, Decode checks each scalar it
// reads — every member is read, or it is an error — and on any error
// asks the strict validator whether the line was JSON at all, so a
// malformed line is reported as such.
func (d *Decoder) Decode(line []byte) (Event, error) {
	if ev, ok := d.flat(line); ok {
		return ev, nil
	}
	v, err := d.p.ParseBytes(line)
	if err != nil {
		return Event{}, syntaxError(line, err)
	}
	d.strict, d.invalid = true, false
	ev, err := d.DecodeValue(v)
	d.strict = false
	if err != nil || d.invalid {
		if fastjson.ValidateBytes(line) != nil {
			return Event{}, syntaxError(line, err)
		}
		if err == nil {
			// A scalar check failed that the validator passes.
			return Event{}, fmt.Errorf("not a JSON object: malformed value")
		}
	}
	return ev, err
}

func syntaxError(line []byte, perr error) error {
	err := fastjson.ValidateBytes(line)
	if err == nil {
		err = perr
	}
	if strings.HasPrefix(err.Error(), "unexpected tail") {
		return fmt.Errorf("one JSON object per line: there is more after the object")
	}
	return fmt.Errorf("not a JSON object: %v", err)
}

// check notes a scalar that is not strict JSON (in Decode only). It must
// run before x.Type(), which replaces a string's raw text with its value.
func (d *Decoder) check(x *fastjson.Value) {
	if !d.strict || d.invalid {
		return
	}
	d.num = x.MarshalTo(d.num[:0])
	if !strictScalar(d.num) {
		d.invalid = true
	}
}

// DecodeValue reads one event from an already parsed, valid JSON value
// (the stdio server parses the whole request line once).
func (d *Decoder) DecodeValue(v *fastjson.Value) (Event, error) {
	o, err := v.Object()
	if err != nil {
		return Event{}, fmt.Errorf("not a JSON object: %s", describeJSON(v))
	}
	// The last "event" member counts, as for every other member.
	var ev *fastjson.Value
	o.Visit(func(key []byte, x *fastjson.Value) {
		if string(key) == "event" {
			ev = x
		}
	})
	if ev == nil {
		return Event{}, fmt.Errorf(`missing "event": every event names itself, as {"event": "turn_end", …}`)
	}
	d.check(ev)
	if ev.Type() != fastjson.TypeString {
		return Event{}, fmt.Errorf(`"event" must be a string`)
	}
	nb, _ := ev.StringBytes()
	kind, ok := kinds[string(nb)]
	if !ok {
		return Event{}, fmt.Errorf("unknown event %q%s (events: %s)", validUTF8(nb), lang.Suggest(validUTF8(nb), contract.EventNames()), strings.Join(contract.EventNames(), ", "))
	}
	def := &contract.Events[kind]
	all := allFacts[kind]
	if cap(d.facts) < len(all) {
		d.facts = make([]lang.Value, len(all), maxFacts)
		d.last = make([]string, maxFacts)
		d.errs = make([]error, maxFacts)
	}
	facts, errs := d.facts[:len(all)], d.errs[:len(all)]
	copy(facts, defaults[kind])
	clear(errs)
	d.unknown = ""
	hasUnknown := false
	o.Visit(func(key []byte, x *fastjson.Value) {
		i := factIndex(all, key)
		switch {
		case i < 0:
			if string(key) == "event" {
				if x != ev {
					// An earlier "event", overridden by the last, is
					// still part of the line: strict JSON or refused.
					d.check(x)
				}
				return
			}
			if k := validUTF8(key); !hasUnknown || k < d.unknown {
				d.unknown, hasUnknown = k, true
			}
			return
		}
		facts[i], errs[i] = d.value(def, &all[i], i, x)
	})
	for _, err := range errs {
		if err != nil {
			return Event{}, err
		}
	}
	if hasUnknown {
		return Event{}, unknownFact(def, all, d.unknown)
	}
	return newEvent(def, kind, facts), nil
}

// value reads one fact of the right type and checks it.
func (d *Decoder) value(def *contract.Event, f *contract.Fact, i int, x *fastjson.Value) (lang.Value, error) {
	d.check(x)
	t := x.Type()
	var v lang.Value
	switch f.Type {
	case contract.Bool:
		switch t {
		case fastjson.TypeTrue:
			v.Bool = true
		case fastjson.TypeFalse:
		default:
			return v, typeError(def, f, x)
		}
	case contract.Int:
		if t != fastjson.TypeNumber {
			return v, typeError(def, f, x)
		}
		v.Num = d.number(x) // ±Inf on overflow: checkFact names it
	case contract.String:
		if t != fastjson.TypeString {
			return v, typeError(def, f, x)
		}
		b, _ := x.StringBytes()
		if len(f.Enum) > 0 {
			for j, e := range f.Enum {
				if e == string(b) {
					return lang.Value{Str: e, Num: float64(j)}, nil
				}
			}
			return v, fmt.Errorf("event %s: fact %q is one of %s, not %q", def.Name, f.Name, strings.Join(f.Enum, ", "), validUTF8(b))
		}
		if d.last[i] != string(b) {
			d.last[i] = validUTF8(b)
		}
		v.Str = d.last[i]
	case contract.Object:
		switch t {
		case fastjson.TypeNull:
		case fastjson.TypeObject:
			v.X = d.plain(x)
		default:
			return v, typeError(def, f, x)
		}
	}
	return v, checkFact(def, f, v)
}

// factIndex finds a fact by name; hosts send few facts, mostly common
// ones, so a scan beats hashing.
func factIndex(all []contract.Fact, key []byte) int {
	for i := range all {
		if all[i].Name == string(key) {
			return i
		}
	}
	return -1
}

func typeError(def *contract.Event, f *contract.Fact, x *fastjson.Value) error {
	return fmt.Errorf("event %s: fact %q must be %s, not %s", def.Name, f.Name, article(f.Type), describeJSON(x))
}

func unknownFact(def *contract.Event, all []contract.Fact, name string) error {
	names := make([]string, len(all))
	for j, f := range all {
		names[j] = f.Name
	}
	return fmt.Errorf("event %s has no fact %q%s (facts: %s)", def.Name, name, lang.Suggest(name, names), strings.Join(names, ", "))
}

// plain turns a parsed JSON value (checked whole by value) into bool, float64, string, nil,
// []any or map[string]any, as encoding/json would.
func (d *Decoder) plain(x *fastjson.Value) any {
	switch x.Type() {
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	case fastjson.TypeNumber:
		return d.number(x)
	case fastjson.TypeString:
		b, _ := x.StringBytes()
		return validUTF8(b)
	case fastjson.TypeArray:
		a, _ := x.Array()
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = d.plain(e)
		}
		return out
	case fastjson.TypeObject:
		o, _ := x.Object()
		out := make(map[string]any, o.Len())
		o.Visit(func(k []byte, e *fastjson.Value) { out[validUTF8(k)] = d.plain(e) })
		return out
	}
	return nil
}

func describeJSON(x *fastjson.Value) string {
	switch x.Type() {
	case fastjson.TypeNull:
		return "null"
	case fastjson.TypeTrue:
		return "true"
	case fastjson.TypeFalse:
		return "false"
	case fastjson.TypeString:
		b, _ := x.StringBytes()
		return fmt.Sprintf("%q", validUTF8(b))
	case fastjson.TypeNumber:
		return string(x.MarshalTo(nil))
	case fastjson.TypeObject:
		return "an object"
	case fastjson.TypeArray:
		return "a list"
	}
	return "a value"
}

// defaults holds each event kind's facts at their default values, and
// maxFacts the most facts any event has.
var defaults, maxFacts = func() ([][]lang.Value, int) {
	out := make([][]lang.Value, len(allFacts))
	most := 0
	for k, all := range allFacts {
		out[k] = make([]lang.Value, len(all))
		for i, f := range all {
			out[k][i] = defaultValue(f)
		}
		most = max(most, len(all))
	}
	return out, most
}()

// validUTF8 returns b as a string with each invalid byte replaced by
// U+FFFD, as encoding/json decodes strings.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}

// number reads a JSON number exactly: fastjson's own conversion is not
// always correctly rounded (7e081), so short integers — nearly every fact
// — are read here and anything else by strconv. Overflow gives ±Inf.
func (d *Decoder) number(x *fastjson.Value) float64 {
	d.num = x.MarshalTo(d.num[:0])
	return numberOf(d.num)
}

// numberOf converts a JSON number's text as number does.
func numberOf(raw []byte) float64 {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 15 {
		n := int64(0)
		for _, c := range digits {
			if c < '0' || c > '9' {
				goto general
			}
			n = n*10 + int64(c-'0')
		}
		if len(digits) < len(raw) {
			if n == 0 {
				return math.Copysign(0, -1)
			}
			n = -n
		}
		return float64(n)
	}
general:
	f, _ := strconv.ParseFloat(string(raw), 64)
	return f
}

// strictScalar reports whether raw, a value as fastjson re-marshals it, is
// valid JSON. Objects and arrays are re-marshalled from raw keys and
// values, so they are validated whole.
func strictScalar(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '{' || c == '[':
		return fastjson.ValidateBytes(raw) == nil
	case c == '"':
		inner := raw[1 : len(raw)-1]
		for i := 0; i < len(inner); i++ {
			switch c := inner[i]; {
			case c < 0x20:
				return false
			case c == '\\':
				i++
				if i >= len(inner) {
					return false
				}
				switch inner[i] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				case 'u':
					if i+4 >= len(inner) {
						return false
					}
					for _, h := range inner[i+1 : i+5] {
						if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
							return false
						}
					}
					i += 4
				default:
					return false
				}
			}
		}
		return true
	case c == 't':
		return string(raw) == "true"
	case c == 'f':
		return string(raw) == "false"
	case c == 'n':
		return string(raw) == "null"
	}
	return strictNumber(raw)
}

// strictNumber checks JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func strictNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	return i == len(b)
}
