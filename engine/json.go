package engine

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// The JSON forms of decisions — the eval contract's lines, the stdio
// server's results, the decision log — are written here once, without
// reflection or allocation.

// AppendJSON appends the decision's members of the eval contract and the
// stdio protocol, without braces: "rules":[…],"effects":[…],"state":{…},
// and "explain":[…] when the decision has an explanation.
func (d Decision) AppendJSON(b []byte, s *Session) []byte { return d.AppendJSONCached(b, s, nil) }

// AppendJSONCached is AppendJSON writing through c (nil: none).
func (d Decision) AppendJSONCached(b []byte, s *Session, c *LineCache) []byte {
	b = append(b, `"rules":`...)
	b = c.appendStrings(b, d.Rules)
	b = append(b, `,"effects":`...)
	b = c.appendEffects(b, d.Effects)
	b = append(b, `,"state":`...)
	if c != nil {
		b = c.appendState(b, s)
	} else {
		b = s.appendStateJSON(b)
	}
	if d.Explain != nil {
		j, _ := json.Marshal(d.Explain) // plain strings and bools: cannot fail
		b = append(b, `,"explain":`...)
		b = append(b, j...)
	}
	return b
}

// AppendStringsJSON appends a JSON array of strings ([] when empty).
func AppendStringsJSON(b []byte, ss []string) []byte {
	var c *LineCache
	return c.appendStrings(b, ss)
}

// AppendJSONArray appends a JSON array of xs, each written by appendOne
// ([] when xs is empty).
func AppendJSONArray[T any](b []byte, xs []T, appendOne func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOne(b, x)
	}
	return append(b, ']')
}

// AppendEffectsJSON appends a JSON array of effects ([] when empty).
func AppendEffectsJSON(b []byte, effs []Effect) []byte {
	var c *LineCache
	return c.appendEffects(b, effs)
}

// AppendJSON appends {"effect": NAME, ARG: VALUE, …} in argument order.
func (e Effect) AppendJSON(b []byte) []byte {
	var c *LineCache
	return c.appendEffect(b, e)
}

// MarshalJSON is AppendJSON for encoding/json.
func (e Effect) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

func appendJSONValue(b []byte, v any, c *LineCache) []byte {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(b, x)
	case float64:
		return appendJSONNumber(b, x)
	case string:
		return c.appendString(b, x)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// appendJSONNumber writes integers without a fraction, as the policy shows
// them; JSON has no infinities, so those (a division by a tiny number) are
// written as the largest finite numbers.
func appendJSONNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "null"...)
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// AppendJSONString appends s as a JSON string, escaping as encoding/json
// does (quotes, backslashes, control characters, <, >, &, U+2028/9) and
// replacing invalid UTF-8 with U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	// Runs of bytes that need no escaping, valid multi-byte characters
	// among them, are copied in one go: the texts of initialize's answer
	// (descriptions, the boundary's messages) have a newline or a dash
	// every line, and a byte at a time after the first of them was most of
	// the answer's writing.
	start := 0 // s[start:i] is copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			invalid := r == utf8.RuneError && size == 1
			if !invalid && r != '\u2028' && r != '\u2029' {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			if invalid {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			}
			i += size
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		default: // a control character, <, > or &
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainJSON marks the bytes AppendJSONString copies as they are.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendStateJSON appends the state as a JSON object, slots in declaration
// order.
func (s *Session) AppendStateJSON(b []byte) []byte { return s.appendStateJSON(b) }

func (s *Session) appendStateJSON(b []byte) []byte {
	b = append(b, '{')
	for i, sl := range s.eng.policy.Slots {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.appendSlotJSON(b, sl)
	}
	return append(b, '}')
}

// appendSlotJSON appends one slot's member of the state object.
func (s *Session) appendSlotJSON(b []byte, sl *rules.Slot) []byte {
	b = AppendJSONString(b, sl.Name)
	b = append(b, ':')
	return s.appendSlotValue(b, sl)
}

// appendSlotValue appends one slot's value as JSON.
func (s *Session) appendSlotValue(b []byte, sl *rules.Slot) []byte {
	v := s.state[sl.Index]
	switch {
	case sl.IsEnum():
		return AppendJSONString(b, sl.Enum[int(v.Num)])
	case sl.Type == lang.Bool:
		return strconv.AppendBool(b, v.Bool)
	case sl.Type.Numeric():
		return appendJSONNumber(b, v.Num)
	}
	return AppendJSONString(b, v.Str)
}
