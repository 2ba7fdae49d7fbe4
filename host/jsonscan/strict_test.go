package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// strictAgrees reports where a strict Doc and encoding/json (RFC 8259,
// as JSON.parse reads it but for UTF-8, which neither checks) differ on
// whether text is one JSON value, and, for one that is, on every key's
// value (the last of a key written twice) and the compact JSON that
// JSON.stringify of JSON.parse's object writes.
func strictAgrees(text []byte) error {
	d := Doc{Strict: true}
	v, err := d.Parse(text)
	if ok := json.Valid(text); ok != (err == nil) {
		return fmt.Errorf("encoding/json valid %v, strict Doc: %v", ok, err)
	}
	if err != nil {
		return nil
	}
	var ref any
	if json.Unmarshal(text, &ref) != nil {
		return nil
	}
	var got any
	if err := json.Unmarshal(v.AppendJSON(nil), &got); err != nil {
		return fmt.Errorf("the Doc's JSON does not read back: %v", err)
	}
	if a, b := fmt.Sprint(ref), fmt.Sprint(got); a != b {
		return fmt.Errorf("values differ:\n  encoding/json %s\n  Doc           %s", a, b)
	}
	return nil
}

// strictCases are the lines where JSON.parse differs from a lenient read:
// raw control characters, unknown and short escapes, numbers JSON does
// not write, NaN, keys written twice, and the same in strings long
// enough for the block scan, at every offset of a block.
func strictCases() []string {
	cases := []string{
		`{"a":1}`, `{"a":01}`, `{"a":1000.}`, `{"a":.5}`, `{"a":-0}`, `{"a":-}`, `{"a":+1}`, `{"a":1e}`, `{"a":1e+}`, `{"a":1E-2}`,
		`{"a":NaN}`, `{"a":nan}`, `{"a":inf}`, `{"a":-Infinity}`, `{"a":tru}`, `{"a":nul}`,
		"{\"a\":\"x\x01y\"}", "{\"a\":\"x\ty\"}", "{\"a\":\"x\x00\"}", "{\"a\x1f\":1}",
		`{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\u1234"}`, `{"a":"\/\b\f\n\r\t\"\\"}`, `{"\q":1}`,
		`{"totalTokens":190000,"totalTokens":181120}`, `{"t\u006ftalTokens":1,"totalTokens":2}`, `{"totalTokens":1,"t\u006ftalTokens":2}`,
		`{"a":{"b":1,"b":{"c":2}},"a":[1,2]}`, `{"a":1,"b":2,"a":3}`,
		`{"a":1} {"b":2}`, `{"a":1}{"b":2}`, "\ufeff{\"a\":1}", ` {"a":1} `, "{\"a\":1}\r",
	}
	for _, bad := range []string{"\x01", "\t", "\\q", "\\u12", "\\/", "\\r", "\\b", "\\f", "\\u00e9", "\\n", "\\t", "\\\"", "\\\\"} {
		for off := 0; off < 70; off += 7 {
			cases = append(cases, `{"a":"`+strings.Repeat("x", off)+bad+strings.Repeat("y", 100)+`"}`)
			cases = append(cases, `{"a":"`+strings.Repeat("é", off)+bad+strings.Repeat("z", 70-off)+`"}`)
		}
	}
	var many strings.Builder
	many.WriteString("{")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	many.WriteString(`"k7":"last"}`)
	return append(cases, many.String())
}

func TestStrictAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range strictCases() {
		if err := strictAgrees([]byte(c)); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
}

// A key written twice reads as JSON.parse reads it: the last value, at
// the place of the first; Dup names it.
func TestStrictDuplicateKeys(t *testing.T) {
	d := Doc{Strict: true}
	v, err := d.Parse([]byte(`{"usage":{"totalTokens":190000,"t\u006ftalTokens":181120},"b":2,"usage":{"totalTokens":5,"totalTokens":181120}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := v.At(NewKey("usage")).At(NewKey("totalTokens")).Int(); n != 181120 {
		t.Errorf("usage.totalTokens is %d, want the last, 181120", n)
	}
	if got := string(v.AppendJSON(nil)); got != `{"usage":{"totalTokens":181120},"b":2}` {
		t.Errorf("JSON %s", got)
	}
	if k, ok := d.Dup(); !ok || string(k) != "totalTokens" {
		t.Errorf("Dup %q %v", k, ok)
	}
	lenient := Doc{}
	v, _ = lenient.Parse([]byte(`{"a":1,"a":2}`))
	if v.Get("a").Int() != 1 {
		t.Error("a lenient Doc reads the first, as fastjson does")
	}
}

func FuzzStrictAgreesWithEncodingJSON(f *testing.F) {
	for _, c := range strictCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if err := strictAgrees(text); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
	})
}

// An object of many keys each written twice is read in linear time, the
// members in the order of their first writing with their last values.
func TestStrictManyDuplicateKeys(t *testing.T) {
	const n = 100_000
	var b strings.Builder
	b.WriteString("{")
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, pass)
		}
	}
	b.WriteString(`"end":0}`)
	d := Doc{Strict: true}
	v, err := d.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for k, x := range v.Members() {
		if want := fmt.Sprintf("k%d", count); count < n && (string(k) != want || x.Int() != 1) {
			t.Fatalf("member %d is %s=%d, want %s=1", count, k, x.Int(), want)
		}
		count++
	}
	if count != n+1 {
		t.Fatalf("%d members, want %d", count, n+1)
	}
}
