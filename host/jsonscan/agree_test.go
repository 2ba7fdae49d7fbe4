package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/valyala/fastjson"
)

var kinds = map[fastjson.Type]Kind{
	fastjson.TypeNull: Null, fastjson.TypeObject: Object, fastjson.TypeArray: Array,
	fastjson.TypeString: String, fastjson.TypeNumber: Number, fastjson.TypeTrue: True, fastjson.TypeFalse: False,
}

// agree reads text with fastjson's Scanner and with a Doc and reports the
// first difference: which values each reads, where each fails and why,
// every value's type, text, decoded strings, keys, members found by key,
// its compact JSON, and every string's measured length against
// EscapedLen of its body.
func agree(text []byte) error {
	var sc fastjson.Scanner
	var d Doc
	sc.InitBytes(text)
	d.Init(text)
	for k := 0; ; k++ {
		a, b := sc.Next(), d.Next()
		if a != b {
			return fmt.Errorf("value %d: fastjson reads one: %v, the Doc: %v (fastjson %v, Doc %v)", k, a, b, sc.Error(), d.Err())
		}
		if !a {
			if d.Value().Exists() {
				return fmt.Errorf("value %d: the Doc still has a value after Next reported false", k)
			}
			ea, eb := sc.Error(), d.Err()
			if (ea == nil) != (eb == nil) {
				return fmt.Errorf("value %d: errors %v and %v", k, ea, eb)
			}
			if ea != nil && quoted(ea.Error()) != quoted(eb.Error()) {
				return fmt.Errorf("value %d: error\n  fastjson %s\n  Doc      %s", k, ea, eb)
			}
			return nil
		}
		if err := same(sc.Value(), d.Value(), "$"); err != nil {
			return fmt.Errorf("value %d: %v", k, err)
		}
		if ja, jb := compact(nil, sc.Value()), d.Value().AppendJSON(nil); !bytes.Equal(ja, jb) {
			return fmt.Errorf("value %d: JSON\n  fastjson %s\n  Doc      %s", k, ja, jb)
		}
	}
}

// compact writes fastjson's value as AppendJSON must: members and elements
// in order without spaces, every string and key as encoding/json writes
// what fastjson decodes it to, numbers and literals as written.
func compact(dst []byte, v *fastjson.Value) []byte {
	str := func(dst, b []byte) []byte {
		j, _ := json.Marshal(string(b))
		return append(dst, j...)
	}
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		dst = append(dst, '{')
		n := 0
		o.Visit(func(k []byte, x *fastjson.Value) {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(str(dst, k), ':')
			dst = compact(dst, x)
		})
		return append(dst, '}')
	case fastjson.TypeArray:
		a, _ := v.Array()
		dst = append(dst, '[')
		for i, x := range a {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = compact(dst, x)
		}
		return append(dst, ']')
	case fastjson.TypeString:
		return str(dst, v.GetStringBytes())
	}
	return v.MarshalTo(dst)
}

// quoted cuts an error text where it starts quoting the text: fastjson
// quotes the whole rest of the line, a Doc its first maxQuoted bytes.
func quoted(msg string) string {
	for _, m := range []string{"found: ", "char: "} {
		if i := strings.Index(msg, m); i >= 0 {
			return msg[:i]
		}
	}
	return msg
}

func same(a *fastjson.Value, b Value, at string) error {
	// The raw text first: reading a fastjson string's type decodes it,
	// and it is then written escaped anew.
	raw := a.MarshalTo(nil)
	if kinds[a.Type()] != b.Kind() {
		return fmt.Errorf("%s: %s against %s", at, a.Type(), b.Kind())
	}
	switch b.Kind() {
	case String:
		if !bytes.Equal(raw, b.Raw()) {
			return fmt.Errorf("%s: text %q against %q", at, raw, b.Raw())
		}
		if want := EscapedLen(raw[1 : len(raw)-1]); b.JSLen() != want {
			return fmt.Errorf("%s: length %d, EscapedLen %d of %q", at, b.JSLen(), want, raw)
		}
		if !bytes.Equal(a.GetStringBytes(), b.Str()) {
			return fmt.Errorf("%s: decoded %q against %q", at, a.GetStringBytes(), b.Str())
		}
	case Number:
		if !bytes.Equal(a.MarshalTo(nil), b.Raw()) {
			return fmt.Errorf("%s: number %s against %s", at, a.MarshalTo(nil), b.Raw())
		}
		if a.GetInt() != b.Int() || a.GetFloat64() != b.Number() && a.GetFloat64() == a.GetFloat64() {
			return fmt.Errorf("%s: number %s read as %d, %v against %d, %v", at, b.Raw(), a.GetInt(), a.GetFloat64(), b.Int(), b.Number())
		}
	case Array:
		els, _ := a.Array()
		i := 0
		for x := range b.Elems() {
			if i >= len(els) {
				return fmt.Errorf("%s: more elements than %d", at, len(els))
			}
			if err := same(els[i], x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
			i++
		}
		if i != len(els) {
			return fmt.Errorf("%s: %d elements against %d", at, i, len(els))
		}
	case Object:
		o, _ := a.Object()
		type kv struct {
			k string
			v *fastjson.Value
		}
		var want []kv
		o.Visit(func(k []byte, v *fastjson.Value) { want = append(want, kv{string(k), v}) })
		i := 0
		for k, x := range b.Members() {
			if i >= len(want) {
				return fmt.Errorf("%s: more members than %d", at, len(want))
			}
			if string(k) != want[i].k {
				return fmt.Errorf("%s: key %q against %q", at, want[i].k, k)
			}
			if err := same(want[i].v, x, at+"."+string(k)); err != nil {
				return err
			}
			i++
		}
		if i != len(want) {
			return fmt.Errorf("%s: %d members against %d", at, i, len(want))
		}
	}
	return nil
}

// byKey checks Get against fastjson's Get on a fresh parse of the same
// object (fastjson's reading of keys changes once it has decoded them).
func byKey(text []byte) error {
	var d Doc
	d.Init(text)
	if !d.Next() || d.Value().Kind() != Object {
		return nil
	}
	var keys []string
	for k := range d.Value().Members() {
		keys = append(keys, string(k))
	}
	keys = append(keys, "type", "missing")
	for _, k := range keys {
		var sc fastjson.Scanner
		sc.InitBytes(text)
		sc.Next()
		a, b := sc.Value().Get(k), d.Value().Get(k)
		if (a == nil) != !b.Exists() {
			return fmt.Errorf("Get(%q): fastjson %v, Doc %v", k, a != nil, b.Exists())
		}
		if a != nil {
			if err := same(a, b, k); err != nil {
				return fmt.Errorf("Get(%q): %v", k, err)
			}
		}
	}
	return nil
}

// sessionLines are lines shaped as Pi writes them, escapes and all.
var sessionLines = []string{
	`{"type":"session","version":3,"id":"a1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/p"}`,
	`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"\tif err := load(\"config.yaml\"); err != nil { return fmt.Errorf(\"loader: %w\", err) } // déjà vu\n\\\\server\\share \u00e9\ud83d\ude00 😀 done"}],"details":{"output":"x\"y"},"isError":false,"timestamp":0}}`,
	`{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"The loader returns early."},{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":"pkg/a.go","n":[1,2.5,-3e2,true,false,null]}}],"usage":{"input":3,"output":40,"cacheRead":6000,"cacheWrite":400,"totalTokens":6443,"cost":{"total":0.0053}},"stopReason":"toolUse","timestamp":0}}`,
	` {"a\u0062":1 , "ab" : 2,"c\n":"\q\u12","d":"\ud800x","e":"\ud800\u0041"}  {"type":"custom"}`,
	`[NaN, -Inf, inf, +nan, 1.2.3, 00, -]`,
	`{"deep":` + strings.Repeat("[", 299) + strings.Repeat("]", 299) + `}`,
	`{"deeper":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
	`{"type":"message","text":"` + strings.Repeat(`abc\\`, 9) + `\"` + strings.Repeat("é", 9) + `"}`,
	// An escaped byte that is not ASCII, in a word and in the last bytes;
	// a raw carriage return between tokens; a control character that
	// decodes to one strconv must quote.
	`{"t":"abc\é\😀xyzabcdefgh","u":"ab\é"}`, `{"v":"\\\é12345678"}`, `"\é"`,
	"{\"a\" :\r1,\r\"b\":\"\\u001f x\"}",
	// Numbers with every byte of a number's text: signs, points and
	// exponents of either case.
	`{"n":[1E5,-2.5E-3,1e+2,+4,0.5e-1]}`,
	`{"cut":"abc`, `{"k" 1}`, `{"k":1 "j":2}`, `[1 2]`, `{,}`, `tru`, `nul`, `nan`, `"\`, `"a\"`, `{"a":"\\"}`, `{}{}[]`, `{"x":[]}`,
}

func TestAgreesWithFastjson(t *testing.T) {
	for _, line := range sessionLines {
		if err := agree([]byte(line)); err != nil {
			t.Errorf("%s\n%v", line, err)
		}
		if err := byKey([]byte(line)); err != nil {
			t.Errorf("%s\n%v", line, err)
		}
	}
}

// TestAgreesOnMutatedLines cuts, doubles and swaps the bytes of session
// lines at random, so that both readers meet every way a line goes wrong
// and strings whose escapes and quotes fall at every offset of a word.
func TestAgreesOnMutatedLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("\"\\{}[],:u0aé\t \n1e-.tfn")
	runs := 20000
	if testing.Short() {
		runs = 2000
	}
	for i := 0; i < runs; i++ {
		b := []byte(sessionLines[rng.IntN(len(sessionLines))])
		for m := rng.IntN(4); m >= 0; m-- {
			p := rng.IntN(len(b) + 1)
			switch rng.IntN(4) {
			case 0:
				b = b[:p]
			case 1:
				b = append(b[:p:p], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[p:]...)...)
			case 2:
				if p < len(b) {
					b[p] = alphabet[rng.IntN(len(alphabet))]
				}
			case 3:
				if p < len(b) {
					b = append(b[:p:p], b[p+1:]...)
				}
			}
		}
		if err := agree(b); err != nil {
			t.Fatalf("%q\n%v", b, err)
		}
		if err := byKey(b); err != nil {
			t.Fatalf("%q\n%v", b, err)
		}
	}
}

// TestStringLengthAtEveryOffset measures strings of escapes, quotes,
// backslash runs and wide characters, started at every offset of a word,
// against the UTF-16 length of what encoding/json decodes them to.
func TestStringLengthAtEveryOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "😀", `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\/`, "€", " "}
	for i := 0; i < 20000; i++ {
		var body strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			body.WriteString(pieces[rng.IntN(len(pieces))])
		}
		pad := strings.Repeat(" ", rng.IntN(8))
		text := `[` + pad + `"` + body.String() + `"]`
		var s []string
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatal(err)
		}
		want := int64(len(utf16.Encode([]rune(s[0]))))
		var d Doc
		v, err := d.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for x := range v.Elems() {
			if x.JSLen() != want {
				t.Fatalf("%s: length %d, want %d", text, x.JSLen(), want)
			}
			if string(x.Str()) != s[0] {
				t.Fatalf("%s: decoded %q, want %q", text, x.Str(), s[0])
			}
		}
	}
}

func FuzzAgreesWithFastjson(f *testing.F) {
	for _, l := range sessionLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := agree(b); err != nil {
			t.Fatalf("%q\n%v", b, err)
		}
		if err := byKey(b); err != nil {
			t.Fatalf("%q\n%v", b, err)
		}
	})
}

// TestDepthCountsLeaves: a string or number member is one level deeper
// than its object, as fastjson counts it, so a leaf at MaxDepth reads and
// one past it does not, whether the object reads it in place (a string)
// or through value.
func TestDepthCountsLeaves(t *testing.T) {
	for _, leaf := range []string{`"s"`, `1`} {
		for _, objects := range []int{MaxDepth - 1, MaxDepth} {
			text := []byte(strings.Repeat(`{"a":`, objects) + leaf + strings.Repeat(`}`, objects))
			if err := agree(text); err != nil {
				t.Fatalf("%d objects around %s: %v", objects, leaf, err)
			}
			var d Doc
			_, err := d.Parse(text)
			if want := objects == MaxDepth; (err != nil) != want {
				t.Errorf("%d objects around %s: error %v, want one: %v", objects, leaf, err, want)
			}
		}
	}
}
