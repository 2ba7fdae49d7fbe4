package estimate

import (
	"math"
	"strconv"

	"github.com/resetpolicy/resetpolicy/host/jsonscan"
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
func Message(m jsonscan.Value) int64 { return Tokens(MessageChars(m)) }

// The keys of a message and of its content blocks, each made once
// (jsonscan.Key): a replay reads them at every message.
var (
	keyRole      = jsonscan.NewKey("role")
	keyContent   = jsonscan.NewKey("content")
	keyType      = jsonscan.NewKey("type")
	keyText      = jsonscan.NewKey("text")
	keyThinking  = jsonscan.NewKey("thinking")
	keyName      = jsonscan.NewKey("name")
	keyArguments = jsonscan.NewKey("arguments")
)

// MessageChars is the character count behind Message. A string is
// measured as the parse found it (jsonscan's JSLen: from its JSON text as
// written, escapes and all, without decoding it: most of a session's
// bytes are in strings only their length is needed of).
func MessageChars(m jsonscan.Value) int64 {
	if m.Kind() != jsonscan.Object {
		return 0
	}
	return RoleChars(m.At(keyRole).Str(), m)
}

// RoleChars is MessageChars of a message whose role the caller has read
// already (a reader that keeps the role, and would otherwise look it up
// twice).
func RoleChars(role []byte, m jsonscan.Value) int64 {
	switch string(role) {
	case "system":
		n := ContentChars(m.At(keyContent))
		for _, v := range m.Get("sections").Members() {
			// `if (section) chars += section.length`: strings only
			// have a length worth adding; "" is falsy.
			n += v.JSLen()
		}
		if t := m.Get("toolsAdded"); truthy(t) {
			n += StringifyLen(t)
		}
		return n
	case "user", "toolResult", "custom":
		return ContentChars(m.At(keyContent))
	case "assistant":
		var n int64
		for b := range m.At(keyContent).Elems() {
			n += AssistantBlockChars(b, b.At(keyType).Str())
		}
		return n
	case "bashExecution":
		return m.Get("command").JSLen() + m.Get("output").JSLen()
	case "branchSummary", "compactionSummary":
		return m.Get("summary").JSLen()
	}
	return 0
}

// AssistantBlockChars is what one block of an assistant's content counts,
// its type read by the caller: a reader that walks the blocks for its
// own ends counts them in the same pass.
func AssistantBlockChars(b jsonscan.Value, typ []byte) int64 {
	switch string(typ) {
	case "text":
		return b.At(keyText).JSLen()
	case "thinking":
		return b.At(keyThinking).JSLen()
	case "toolCall":
		n := jsonscan.TextLen(b.At(keyName).Str())
		if a := b.At(keyArguments); a.Exists() {
			n += StringifyLen(a)
		}
		return n
	}
	return 0
}

// ContentChars is Pi's estimateTextAndImageContentChars: a string's
// length, or the text of text blocks plus ImageChars per image block.
func ContentChars(v jsonscan.Value) int64 {
	if v.Kind() != jsonscan.Array {
		return v.JSLen()
	}
	var n int64
	for b := range v.Elems() {
		switch string(b.At(keyType).Str()) {
		case "text":
			n += b.At(keyText).JSLen()
		case "image":
			n += ImageChars
		}
	}
	return n
}

// SummaryChars is the length of a summary (a compaction's or a branch
// summary's) string value.
func SummaryChars(v jsonscan.Value) int64 { return v.JSLen() }

func truthy(v jsonscan.Value) bool {
	switch v.Kind() {
	case jsonscan.None, jsonscan.Null, jsonscan.False:
		return false
	case jsonscan.String:
		return len(v.Str()) > 0
	case jsonscan.Number:
		f := v.Number()
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// StringifyLen is the length of JSON.stringify(v) as V8 writes it.
func StringifyLen(v jsonscan.Value) int64 {
	switch v.Kind() {
	case jsonscan.Object:
		n, k := int64(2), 0
		for key, x := range v.Members() {
			if k > 0 {
				n++
			}
			k++
			n += stringLen(key) + 1 + StringifyLen(x)
		}
		return n
	case jsonscan.Array:
		n, k := int64(2), 0
		for x := range v.Elems() {
			if k > 0 {
				n++
			}
			k++
			n += StringifyLen(x)
		}
		return n
	case jsonscan.String:
		return stringLen(v.Str())
	case jsonscan.Number:
		return numberLen(v.Number())
	case jsonscan.True, jsonscan.Null:
		return 4
	case jsonscan.False:
		return 5
	}
	return 0
}

// stringLen is the length of a JSON string literal as JSON.stringify
// writes it: quotes, two-character escapes for " \ \b \f \n \r \t, \u00XX
// for other control characters, everything else as itself.
func stringLen(b []byte) int64 {
	n := int64(2) + jsonscan.TextLen(b)
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
// messages as JSON), read with d. Text that does not parse estimates as 0.
func Raw(d *jsonscan.Doc, msg []byte) int64 {
	v, err := d.Parse(msg)
	if err != nil {
		return 0
	}
	return Message(v)
}
