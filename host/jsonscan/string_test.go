package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// TextLen is the UTF-16 length of valid UTF-8 text, on either side of the
// eight-byte steps.
func TestTextLen(t *testing.T) {
	for _, s := range []string{"", "a", "déjà vu", "日本語のテキスト", "😀", "a😀b", strings.Repeat("x", 17) + "é😀" + strings.Repeat("y", 9),
		strings.Repeat("€", 11), strings.Repeat("𝄞a", 7)} {
		want := int64(len(utf16.Encode([]rune(s))))
		if got := TextLen([]byte(s)); got != want {
			t.Errorf("TextLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// EscapedLen measures a string from its JSON text: each escape one
// UTF-16 unit, a surrogate pair's two escapes two.
func TestEscapedLen(t *testing.T) {
	for in, want := range map[string]string{
		`plain`: "plain", `a\nb\tc`: "a\nb\tc", `q\"q\\`: `q"q\`, `\u00e9t\u00e9`: "été", `\ud83d\ude00!`: "😀!", `déjà`: "déjà", `x\/y`: "x/y",
	} {
		if got, w := EscapedLen([]byte(in)), int64(len(utf16.Encode([]rune(want)))); got != w {
			t.Errorf("EscapedLen(%s) = %d, want %d", in, got, w)
		}
	}
}

// TestEscapedLenAtEveryOffset: EscapedLen of encoding/json's literal is
// the text's UTF-16 length for text mixing ASCII, characters that are
// escaped (quotes, backslashes, control characters, <, >, &, U+2028),
// two-, three- and four-byte characters, so that escapes and multi-byte
// characters fall at every offset of the eight bytes read at a time.
func TestEscapedLenAtEveryOffset(t *testing.T) {
	pieces := []string{"a", "b", " ", "\"", "\\", "\n", "\t", "\x01", "<", "&", "\u2028", "é", "ж", "日", "😀", "/"}
	r := rand.New(rand.NewSource(11))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for range r.Intn(40) {
			sb.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := sb.String()
		lit, _ := json.Marshal(s)
		if got, want := EscapedLen(lit[1:len(lit)-1]), int64(len(utf16.Encode([]rune(s)))); got != want {
			t.Fatalf("EscapedLen(%s) = %d, want %d", lit, got, want)
		}
	}
}

// FuzzLengths: for valid UTF-8 text, TextLen is its UTF-16 length, and
// so are EscapedLen of its JSON string literal (escaped as encoding/json
// escapes it) and the length a Doc measures while it reads the literal.
//
//	go test ./host/jsonscan -run XXX -fuzz FuzzLengths -fuzztime 60s
func FuzzLengths(f *testing.F) {
	for _, s := range []string{"", "plain", "déjà 😀", "a\"b\\c\n\t\u2028<&>", "日本語", `\\\\\"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want := int64(len(utf16.Encode([]rune(s))))
		if got := TextLen([]byte(s)); got != want {
			t.Fatalf("TextLen(%q) = %d, want %d", s, got, want)
		}
		lit, _ := json.Marshal(s)
		if got := EscapedLen(lit[1 : len(lit)-1]); got != want {
			t.Fatalf("EscapedLen(%s) = %d, want %d", lit, got, want)
		}
		var d Doc
		v, err := d.Parse(lit)
		if err != nil || v.JSLen() != want || string(v.Str()) != s {
			t.Fatalf("Doc reads %s as %q, %d (%v), want %q, %d", lit, v.Str(), v.JSLen(), err, s, want)
		}
	})
}

// TestWideIsPerByte holds the eight-byte count to the count of one byte
// at a time, for any bytes, valid UTF-8 or not (a byte above 0xF7 leads
// no character, and counts one).
func TestWideIsPerByte(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var b [8]byte
	for n := 0; n < 100000; n++ {
		for i := range b {
			b[i] = byte(r.Intn(256))
		}
		var want int64
		for _, c := range b {
			want += wideByte(c)
		}
		if got := wide(binary.LittleEndian.Uint64(b[:])); got != want {
			t.Fatalf("wide(% x) = %d, want %d", b, got, want)
		}
	}
}

// TestTableBound holds the package's memory bound: a value's entry in the
// table is 28 bytes, and a text of n bytes makes at most n/2+1 of them.
func TestTableBound(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s > 28 {
		t.Errorf("a table entry is %d bytes, the bound is 28", s)
	}
	for _, text := range []string{`[1,1,1,1,1,1,1,1]`, `{"":1,"":2,"":[]}`, `[[[[[[[[]]]]]]]]`, `[{},{},{}]`, `1`} {
		var d Doc
		if _, err := d.Parse([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if len(d.nodes) > len(text)/2+1 {
			t.Errorf("%s: %d entries for %d bytes", text, len(d.nodes), len(text))
		}
	}
}

// TestTextBound: a text over MaxText is refused, not read with offsets
// that wrap.
func TestTextBound(t *testing.T) {
	defer func(m int) { maxText = m }(maxText)
	maxText = 10
	var d Doc
	d.Init([]byte(`["abcdefgh"]`))
	if d.Next() || d.Err() == nil || !strings.Contains(d.Err().Error(), "over the 10") {
		t.Fatalf("a 12-byte text over a 10-byte bound: next, error %v", d.Err())
	}
	if _, err := d.Parse([]byte(`"abcdefghij"`)); err == nil {
		t.Fatal("Parse read a text over the bound")
	}
	if _, err := d.Parse([]byte(`"abcdefgh"`)); err != nil {
		t.Fatalf("a text of the bound: %v", err)
	}
}

// TestScanKeyAtEveryOffset holds scanKey, a word at a time, to a reading
// a byte at a time: keys of every length up to 20 (words and the bytes
// after them), plain or with an escaped quote or backslash at any place,
// closed or running to the end of the text, with zero to nine bytes
// after them.
func TestScanKeyAtEveryOffset(t *testing.T) {
	byteAtATime := func(s []byte, i int) (int, bool, bool) {
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				return j, false, true
			case '\\':
				end, ok := stringEnd(s, i)
				return end, true, ok
			}
		}
		return len(s), false, false
	}
	pieces := []string{"k", "ey", "é", `\"`, `\\`, `\n`, `\`}
	r := rand.New(rand.NewSource(12))
	for n := 0; n < 30000; n++ {
		var sb strings.Builder
		lead := r.Intn(9)
		sb.WriteString(strings.Repeat("{", lead))
		for sb.Len()-lead < r.Intn(21) {
			if r.Intn(5) == 0 {
				sb.WriteString(pieces[3+r.Intn(len(pieces)-3)])
			} else {
				sb.WriteString(pieces[r.Intn(3)])
			}
		}
		if r.Intn(6) != 0 {
			sb.WriteString(`"`)
		}
		sb.WriteString(`:1}`[:r.Intn(4)] + strings.Repeat(" ", r.Intn(7)))
		s := []byte(sb.String())
		end, esc, ok := scanKey(s, lead)
		wEnd, wEsc, wOK := byteAtATime(s, lead)
		if end != wEnd || esc != wEsc || ok != wOK {
			t.Fatalf("scanKey(%q, %d) = %d, %v, %v; a byte at a time %d, %v, %v", s, lead, end, esc, ok, wEnd, wEsc, wOK)
		}
	}
}
