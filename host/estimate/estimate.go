package estimate

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"github.com/valyala/fastjson"
)

// ImageChars is what Pi counts for an image block (ESTIMATED_IMAGE_CHARS).
const ImageChars = 4800

// Tokens is Pi's Math.ceil(chars / 4).
func Tokens(chars int64) int64 {
	if chars <= 0 {
		return 0
	}
	return (chars + 3) / 4
}

// Message is Pi's estimateTokens of one context message (a message
// entry's message, or the message Pi makes of a custom_message,
// compaction or branch_summary entry). A value that is not an object, or
// a role Pi does not estimate, is 0.
func Message(m *fastjson.Value) int64 { var c Counter; return Tokens(c.MessageChars(m)) }

// MessageChars is the character count behind Message.
func MessageChars(m *fastjson.Value) int64 { var c Counter; return c.MessageChars(m) }

// ContentChars is Pi's estimateTextAndImageContentChars: a string's
// length, or the text of text blocks plus ImageChars per image block.
func ContentChars(v *fastjson.Value) int64 { var c Counter; return c.ContentChars(v) }

// Counter counts as the package functions do, with a buffer it reuses:
// it measures a string from its JSON text as written, escapes and all,
// without decoding it (most of a session's bytes are in strings it only
// needs the length of). Not safe for concurrent use.
type Counter struct{ buf []byte }

// Message is Pi's estimateTokens of one context message.
func (c *Counter) Message(m *fastjson.Value) int64 { return Tokens(c.MessageChars(m)) }

// str is the JavaScript length of a string value (0 for another type or
// none): from its raw JSON text when fastjson has not decoded it yet.
func (c *Counter) str(v *fastjson.Value) int64 {
	if v == nil {
		return 0
	}
	// MarshalTo writes a string fastjson has not decoded as it was in
	// the file, and never decodes it (Type would).
	c.buf = v.MarshalTo(c.buf[:0])
	b := c.buf
	if len(b) < 2 || b[0] != '"' {
		return 0
	}
	return EscapedLen(b[1 : len(b)-1])
}

// EscapedLen is the JavaScript length of the string a JSON string
// literal's body (without its quotes) decodes to: each escape is one
// UTF-16 unit (a \uXXXX of a surrogate pair one of its two), everything
// else as JSLen counts it. One pass, eight bytes at a time up to each
// backslash.
func EscapedLen(b []byte) int64 {
	const (
		hi = 0x8080808080808080
		lo = 0x0101010101010101
		bs = 0x5C5C5C5C5C5C5C5C
	)
	n := int64(len(b))
	for i := 0; i < len(b); {
		if i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			// The bytes before the first backslash (all eight if there
			// is none) are counted at once: the lowest byte the test
			// flags is the first backslash, exactly.
			k := 8
			if t := x ^ bs; (t-lo)&^t&hi != 0 {
				k = bits.TrailingZeros64((t-lo)&^t&hi) / 8
				x &= 1<<(8*k) - 1
			}
			if x&hi != 0 {
				cont := x & hi &^ (x << 1)
				lead := x & (x << 1) & (x << 2) & (x << 3) &^ (x << 4) & hi
				n += int64(bits.OnesCount64(lead)) - int64(bits.OnesCount64(cont))
			}
			if i += k; k == 8 {
				continue
			}
		}
		switch c := b[i]; {
		case c == '\\' && i+1 < len(b):
			// The escape's bytes are ASCII, each counted one: the
			// escape is one unit.
			if b[i+1] == 'u' {
				n -= 5
				i += 6
			} else {
				n--
				i += 2
			}
			continue
		case c&0xC0 == 0x80:
			n--
		case c&0xF8 == 0xF0:
			n++
		}
		i++
	}
	return n
}

// MessageChars is the character count behind Message.
func (c *Counter) MessageChars(m *fastjson.Value) int64 {
	if m == nil || m.Type() != fastjson.TypeObject {
		return 0
	}
	switch string(m.GetStringBytes("role")) {
	case "system":
		n := c.ContentChars(m.Get("content"))
		if s := m.Get("sections"); s != nil && s.Type() == fastjson.TypeObject {
			o, _ := s.Object()
			o.Visit(func(_ []byte, v *fastjson.Value) {
				// `if (section) chars += section.length`: strings only
				// have a length worth adding; "" is falsy.
				if v.Type() == fastjson.TypeString {
					n += JSLen(v.GetStringBytes())
				}
			})
		}
		if t := m.Get("toolsAdded"); truthy(t) {
			n += StringifyLen(t)
		}
		return n
	case "user", "toolResult", "custom":
		return c.ContentChars(m.Get("content"))
	case "assistant":
		var n int64
		for _, b := range m.GetArray("content") {
			switch string(b.GetStringBytes("type")) {
			case "text":
				n += c.str(b.Get("text"))
			case "thinking":
				n += c.str(b.Get("thinking"))
			case "toolCall":
				n += JSLen(b.GetStringBytes("name"))
				if a := b.Get("arguments"); a != nil {
					n += StringifyLen(a)
				}
			}
		}
		return n
	case "bashExecution":
		return c.str(m.Get("command")) + c.str(m.Get("output"))
	case "branchSummary", "compactionSummary":
		return c.str(m.Get("summary"))
	}
	return 0
}

// ContentChars is Pi's estimateTextAndImageContentChars: a string's
// length, or the text of text blocks plus ImageChars per image block.
func (c *Counter) ContentChars(v *fastjson.Value) int64 {
	if v == nil {
		return 0
	}
	// GetArray reads the type without decoding a string (Array would).
	if a := v.GetArray(); a != nil {
		var n int64
		for _, b := range a {
			switch string(b.GetStringBytes("type")) {
			case "text":
				n += c.str(b.Get("text"))
			case "image":
				n += ImageChars
			}
		}
		return n
	}
	return c.str(v)
}

// SummaryChars is the length of a summary (a compaction's or a branch
// summary's) string value.
func (c *Counter) SummaryChars(v *fastjson.Value) int64 { return c.str(v) }

func truthy(v *fastjson.Value) bool {
	if v == nil {
		return false
	}
	switch v.Type() {
	case fastjson.TypeNull, fastjson.TypeFalse:
		return false
	case fastjson.TypeString:
		return len(v.GetStringBytes()) > 0
	case fastjson.TypeNumber:
		f := v.GetFloat64()
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// JSLen is the length of UTF-8 text as a JavaScript string: UTF-16 code
// units, a character beyond the Basic Multilingual Plane counting two.
// It counts the bytes that start a character (every byte but the
// 10xxxxxx continuation bytes) and one more for each four-byte lead
// (11110xxx), eight bytes at a time; for valid UTF-8 that is exact (text
// that is not valid UTF-8 counts about as a decoder's replacement
// characters would).
func JSLen(b []byte) int64 {
	const hi = 0x8080808080808080
	n := int64(len(b))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&hi == 0 {
			continue
		}
		// Continuation: bit 7 set, bit 6 clear.
		cont := x & hi &^ (x << 1)
		// Four-byte lead: bits 7, 6, 5 and 4 set, bit 3 clear.
		lead := x & (x << 1) & (x << 2) & (x << 3) &^ (x << 4) & hi
		n += int64(bits.OnesCount64(lead)) - int64(bits.OnesCount64(cont))
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c&0xC0 == 0x80:
			n--
		case c&0xF8 == 0xF0:
			n++
		}
	}
	return n
}

// StringifyLen is the length of JSON.stringify(v) as V8 writes it.
func StringifyLen(v *fastjson.Value) int64 {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		n, k := int64(2), 0
		o.Visit(func(key []byte, x *fastjson.Value) {
			if k > 0 {
				n++
			}
			k++
			n += stringLen(key) + 1 + StringifyLen(x)
		})
		return n
	case fastjson.TypeArray:
		a, _ := v.Array()
		n := int64(2)
		for i, x := range a {
			if i > 0 {
				n++
			}
			n += StringifyLen(x)
		}
		return n
	case fastjson.TypeString:
		return stringLen(v.GetStringBytes())
	case fastjson.TypeNumber:
		return numberLen(v.GetFloat64())
	case fastjson.TypeTrue, fastjson.TypeNull:
		return 4
	case fastjson.TypeFalse:
		return 5
	}
	return 0
}

// stringLen is the length of a JSON string literal as JSON.stringify
// writes it: quotes, two-character escapes for " \ \b \f \n \r \t, \u00XX
// for other control characters, everything else as itself.
func stringLen(b []byte) int64 {
	n := int64(2) + JSLen(b)
	for _, c := range b {
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// numberLen is the length of a number as JavaScript's Number#toString
// writes it (JSON.stringify writes non-finite numbers as null).
func numberLen(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 4
	}
	return int64(len(JSNumber(f)))
}

// JSNumber formats f as JavaScript's Number#toString does: the shortest
// digits that round-trip, plain notation for exponents from -7 to 20,
// otherwise d.ddde±x.
func JSNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±xx
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	e := 0
	mant := s
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			mant = s[:i]
			e, _ = strconv.Atoi(s[i+1:])
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	for i := 0; i < len(mant); i++ {
		if mant[i] != '.' {
			digits = append(digits, mant[i])
		}
	}
	k := len(digits)
	n := e + 1 // the position of the decimal point
	var out []byte
	if neg {
		out = append(out, '-')
	}
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for i := k; i < n; i++ {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for i := 0; i < -n; i++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return string(out)
}

// Raw is Message of a message's JSON text (the simulated host keeps its
// messages as JSON). Text that does not parse estimates as 0.
func Raw(p *fastjson.Parser, msg []byte) int64 {
	v, err := p.ParseBytes(msg)
	if err != nil {
		return 0
	}
	return Message(v)
}
