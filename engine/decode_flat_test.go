package engine

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// flatLines are lines the fast path reads, lines it leaves to the general
// path, and lines neither accepts.
var flatLines = []string{
	`{"event":"request"}`,
	`{"event":"turn_end","outcome":"completed","tokens":123,"window_id":"w2","synthetic_abort":false,"tool_results":2}`,
	`{"event":"tool","name":"wipe_memory","args":{}}`,
	`{"event":"tool","name":"wipe_memory","args":null}`,
	`{"event":"tool","name":"wipe_memory","args":{"a":1}}`,
	`{"event":"request","tokens":1.5}`, `{"event":"request","tokens":1e999}`, `{"event":"request","tokens":-0}`,
	`{"event":"request","tokens":-1}`, `{"event":"request","tokens":01}`, `{"event":"request","tokens":1.}`,
	`{"event":"request","tokens":12345678901234567890}`, `{"event":"request","tokens":2e3}`,
	` { "event" : "settled" , "aborted" : true } `, "{\"event\":\"settled\",\t\"aborted\":\nfalse}\r",
	`{"event":"request","event":"turn_end"}`, `{"event":"turn_end","event":"request","outcome":"error"}`,
	`{"event":"request","tokens":"x","tokens":5}`, `{"event":"request","tokens":5,"tokens":"x"}`,
	`{"event":"request","nope":1}`, `{"event":null}`, `{}`, `[]`, `null`, `{"event":"request",}`,
	`{"event":"request"} {}`, `{"event":"request"`, `{"event":"request","idle":tru}`, `{"event":"request","idle":truex}`,
	`{"event":"command","args":"set force 1e3","name":"wipe-memory"}`,
	"{\"event\":\"request\",\"window_id\":\"\xff\"}", "{\"event\":\"request\",\"window_id\":\"a\x01\"}",
	`{"event":"request","window_id":"w\u00e9"}`, `{"event":"request","window_id":"wé"}`, `{"ev\u0065nt":"request"}`,
	`{"event":"session_start","reason":"nope"}`, `{"event":"session_start","reason":"new"}`,
	`{"event":"request","context_window":0}`, `{"event":"request","enabled":1}`, `{"event":"nope"}`,
	`{"window_id":"w1","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false,"event":"turn_end","outcome":"error","error":"overflow"}`,
}

// TestFlatDecodesAsTheGeneralPath: whatever line the fast path accepts,
// the general path accepts too, with the same event and facts: over the
// lines above and thousands of random mutations of them.
func TestFlatDecodesAsTheGeneralPath(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	lines := append([]string(nil), flatLines...)
	for range 20000 {
		b := []byte(lines[r.Intn(len(flatLines))])
		switch i := r.Intn(len(b)); r.Intn(3) {
		case 0:
			const alphabet = " \t{}[]\":,.-+eE0123456789tfnulx\\\x00\xff"
			b[i] = alphabet[r.Intn(len(alphabet))]
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]byte{b[r.Intn(len(b))]}, b[i:]...)...)
		}
		lines = append(lines, string(b))
	}
	accepted := 0
	for _, line := range lines {
		var fast, general Decoder
		got, ok := fast.flat([]byte(line))
		if !ok {
			continue
		}
		accepted++
		v, err := general.p.ParseBytes([]byte(line))
		if err != nil {
			t.Fatalf("%q: the fast path accepts what fastjson does not parse: %v", line, err)
		}
		general.strict = true
		want, err := general.DecodeValue(v)
		if err != nil || general.invalid {
			t.Fatalf("%q: the fast path accepts what the general path refuses: %v (invalid %v)", line, err, general.invalid)
		}
		if got.kind != want.kind || got.packed != want.packed || !reflect.DeepEqual(got.facts, want.facts) {
			t.Fatalf("%q: fast path read\n%+v\ngeneral path\n%+v", line, got.facts, want.facts)
		}
	}
	if accepted < 500 {
		t.Fatalf("the fast path took only %d lines", accepted)
	}
	// Numbers the one-pass read must leave to the general path, which
	// refuses the first (more than 2^53) and reads the others.
	for _, line := range []string{
		`{"event":"request","tokens":9999999999999999}`, `{"event":"request","tokens":12345678901234567,"idle":true}`,
		`{"event":"request","tokens":12.5e1,"idle":true}`, `{"event":"request","tokens":1e3,"idle":true}`, `{"event":"request","tokens":07}`,
	} {
		var fast, general Decoder
		got, err1 := fast.Decode([]byte(line))
		v, err := general.p.ParseBytes([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		general.strict = true
		want, err2 := general.DecodeValue(v)
		if (err1 == nil) != (err2 == nil && !general.invalid) || err1 == nil && !reflect.DeepEqual(got.facts, want.facts) {
			t.Errorf("%q: read %v (%v), the general path %v (%v)", line, got.facts, err1, want.facts, err2)
		}
	}
	for _, line := range []string{flatLines[1], flatLines[2], flatLines[len(flatLines)-1], ` { "event" : "settled" , "aborted" : true } `,
		`{"event":"request","tokens":2e3}`, `{"event":"request","tokens":-0}`, `{"event":"request","tokens":12345678901234}`} {
		if _, ok := new(Decoder).flat([]byte(line)); !ok {
			t.Errorf("%q: left to the general path", line)
		}
	}
	// A line whose "event" comes first is read in one pass, keys that hold
	// their colon or not (names of 15 bytes), spaced or not.
	allFacts := `{"event":"turn_end","window_id":"w-3f2a9c1d","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":2}`
	for _, line := range []string{flatLines[1], flatLines[2], ` { "event" : "settled" , "aborted" : true } `, allFacts,
		strings.ReplaceAll(allFacts, `":`, `" : `), strings.ReplaceAll(allFacts, `,"`, ` , "`)} {
		i := skipSpace([]byte(line), skipSpace([]byte(line), 0)+1)
		kind, j, ok := leadingEvent([]byte(line), i)
		if !ok {
			t.Fatalf("%q: no leading event read", line)
		}
		if _, ok := new(Decoder).flatInOrder([]byte(line), j, kind); !ok {
			t.Errorf("%q: left to the two-pass read", line)
		}
	}
	if !strings.Contains(flatLines[4], `"a":1`) {
		t.Fatal("flatLines changed")
	}
}

// TestFactKeyMatchesItsNameOnly: the in-place key match is true for the
// fact's name, its closing quote and, when the three fit in two words, the
// colon after it, in the words read eight bytes at a time or in a line's
// last bytes; it is false for any of those bytes changed, a longer key, a
// space before the colon it holds, or a line ending too soon.
func TestFactKeyMatchesItsNameOnly(t *testing.T) {
	names := []string{"a", "idle", "tokens", "window_id", "context_window", "synthetic_abort", "a_name_of_sixteen", "a_much_longer_fact_name"}
	for _, name := range names {
		k := newFactKey(name)
		if want := len(name) <= 14; k.colon != want {
			t.Errorf("%q: holds its colon %v, want %v", name, k.colon, want)
		}
		for _, pad := range []string{"", "1}", `"some value that runs on"}`} {
			line := []byte(`{"` + name + `":` + pad)
			if !k.at(line, 2) {
				t.Errorf("%q in %q: not matched", name, line)
			}
			for i := 2; i < 2+len(k.pat); i++ {
				bad := append([]byte(nil), line...)
				bad[i] ^= 0x20
				if k.at(bad, 2) {
					t.Errorf("%q: matched %q", name, bad)
				}
			}
			longer := []byte(`{"` + name + `x":` + pad)
			if k.at(longer, 2) {
				t.Errorf("%q: matched %q", name, longer)
			}
			spaced := []byte(`{"` + name + `" :` + pad)
			if got := k.at(spaced, 2); got != !k.colon {
				t.Errorf("%q: matched %q: %v", name, spaced, got)
			}
		}
		if short := []byte(`{"` + name + `"`); k.at(short, 2) != !k.colon {
			t.Errorf("%q: matched %q: %v", name, short, !k.colon)
		}
		if k.at([]byte(`{"`+name), 2) {
			t.Errorf("%q: matched without its quote", name)
		}
	}
}

// TestPlainDigitsReadsTheRun: plainDigits gives the value and end of the
// digit run at any offset, as reading it a byte at a time does, for runs
// of 0 to 16 digits followed by each kind of byte (a digit's neighbours
// 0x2F and 0x3A, 0xFF, which carries when 6 is added, the end of the
// line), and stops after 16 digits.
func TestPlainDigitsReadsTheRun(t *testing.T) {
	slow := func(line []byte, i int) (int64, int) {
		n, j := int64(0), i
		for ; j < len(line) && j-i < 16 && '0' <= line[j] && line[j] <= '9'; j++ {
			n = n*10 + int64(line[j]-'0')
		}
		return n, j
	}
	r := rand.New(rand.NewSource(3))
	for digits := 0; digits <= 20; digits++ {
		for _, after := range []string{"", "}", ",", "/", ":", "\xff", "0x", "e5", "."} {
			for lead := 0; lead < 3; lead++ {
				var run []byte
				for range digits {
					run = append(run, byte('0'+r.Intn(10)))
				}
				line := append(append([]byte(strings.Repeat(`"`, lead)), run...), after...)
				line = append(line, []byte(strings.Repeat(" ", r.Intn(10)))...)
				for _, l := range [][]byte{line, line[:lead+len(run)]} {
					n, j := plainDigits(l, lead)
					wn, wj := slow(l, lead)
					if n != wn || j != wj {
						t.Fatalf("%q at %d: %d, end %d; want %d, end %d", l, lead, n, j, wn, wj)
					}
				}
			}
		}
	}
	if n, j := plainDigits([]byte("99999999999999999999"), 0); j != 16 || n != 9999999999999999 {
		t.Fatalf("20 nines: %d, end %d", n, j)
	}
}

// TestKindNamedIsKinds: the fast path's lookup of an event's name finds
// every event of the contract, as kinds does, and nothing else: not a
// name one byte short or long, another case, or the empty name.
func TestKindNamedIsKinds(t *testing.T) {
	for name, want := range kinds {
		if k, ok := kindNamed([]byte(name)); !ok || k != want {
			t.Errorf("%q: kind %d, %v; want %d", name, k, ok, want)
		}
		for _, other := range []string{name[1:], name + "s", strings.ToUpper(name), name[:len(name)-1] + "x"} {
			if _, ok := kinds[other]; ok {
				continue
			}
			if k, ok := kindNamed([]byte(other)); ok {
				t.Errorf("%q: kind %d", other, k)
			}
		}
	}
	if _, ok := kindNamed(nil); ok {
		t.Error("the empty name names a kind")
	}
	if _, ok := kindNamed([]byte(strings.Repeat("x", 100))); ok {
		t.Error("a long name names a kind")
	}
}

// TestPlainRunEndsAtTheFirstStop: plainRun ends a run where reading it a
// byte at a time does, at any offset and length, with quotes, backslashes,
// control characters and their neighbours (0x1F, 0x20, 0x21, 0x5B, 0x5D,
// 0x7F, 0x80, 0xFF) anywhere, one or several in a word.
func TestPlainRunEndsAtTheFirstStop(t *testing.T) {
	slow := func(line []byte, i int) int {
		for i < len(line) && plainString[line[i]] {
			i++
		}
		return i
	}
	stops := []byte{'"', '\\', 0, 0x01, 0x1f, '\n', '\t'}
	plain := []byte{'a', ' ', '!', '#', '[', ']', 0x7f, 0x80, 0xbf, 0xff, 'Z'}
	r := rand.New(rand.NewSource(5))
	for n := 0; n < 20000; n++ {
		line := make([]byte, r.Intn(40))
		for j := range line {
			line[j] = plain[r.Intn(len(plain))]
			if r.Intn(12) == 0 {
				line[j] = stops[r.Intn(len(stops))]
			}
		}
		i := 0
		if len(line) > 0 {
			i = r.Intn(len(line) + 1)
		}
		if got, want := plainRun(line, i), slow(line, i); got != want {
			t.Fatalf("%q from %d: run ends at %d, want %d", line, i, got, want)
		}
	}
}

// TestFactKeysAreTheirFacts: the keys made at start, their patterns cut
// from one string, are each fact's own key, for every event kind: a key
// out of step would still decode (the key is then looked up by name), so
// only this notices it.
func TestFactKeysAreTheirFacts(t *testing.T) {
	for kind, all := range allFacts {
		if len(factKeys[kind]) != len(all) {
			t.Fatalf("kind %d: %d keys for %d facts", kind, len(factKeys[kind]), len(all))
		}
		for i, f := range all {
			if got, want := factKeys[kind][i], newFactKey(f.Name); got != want {
				t.Errorf("kind %d, fact %s: key %+v, want %+v", kind, f.Name, got, want)
			}
		}
	}
}
