package engine_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// TestDecodeErrors pins every message of the event decoder:
// testdata/decode_errors.txt holds pairs of lines, an input line and the
// error it must give.
func TestDecodeErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/decode_errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases [][2]string
	var pending []string
	for _, l := range strings.Split(string(src), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		pending = append(pending, l)
		if len(pending) == 2 {
			cases = append(cases, [2]string{pending[0], strings.TrimPrefix(pending[1], "=> ")})
			pending = nil
		}
	}
	if len(pending) != 0 || len(cases) < 20 {
		t.Fatalf("malformed testdata: %d cases, %d left over", len(cases), len(pending))
	}
	var d engine.Decoder
	for _, c := range cases {
		_, err := d.Decode([]byte(c[0]))
		if err == nil {
			t.Errorf("%s: no error; want %s", c[0], c[1])
			continue
		}
		if err.Error() != c[1] {
			t.Errorf("%s:\n got %s\nwant %s", c[0], err, c[1])
		}
		// The map path (NewEvent) judges facts alike.
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(c[0]))
		dec.UseNumber()
		if dec.Decode(&m) == nil && !dec.More() && m != nil {
			if _, err2 := engine.NewEvent(m); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("%s: NewEvent says %v, Decoder %v", c[0], err2, err)
			}
		}
	}
}

// TestDecoderReusesNothingItReturnedCloned: ParseEvent's events are
// independent of each other; a Decoder's are overwritten by the next
// Decode, which is what lets it allocate nothing.
func TestDecoderAllocatesNothing(t *testing.T) {
	var d engine.Decoder
	line := []byte(`{"event":"turn_end","window_id":"w-3f2a9c1d","now_ms":1767312000000,"tokens":152340,"outcome":"completed","error":"","tool_results":2}`)
	if _, err := d.Decode(line); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { d.Decode(line) }); n != 0 {
		t.Errorf("Decode allocates %v times per event; want 0", n)
	}
	a, _ := engine.ParseEvent([]byte(`{"event":"request","window_id":"a"}`))
	b, _ := engine.ParseEvent([]byte(`{"event":"request","window_id":"b"}`))
	if x, _ := a.Fact("window_id"); x != "a" {
		t.Errorf("ParseEvent's event was overwritten: %v (other %v)", x, b)
	}
}

// FuzzDecoder holds the decoder to the reference reading of an event:
// encoding/json into a map, then NewEvent. Both accept the same lines and
// read the same facts.
func FuzzDecoder(f *testing.F) {
	for _, s := range benchStream {
		f.Add(s)
	}
	for _, s := range []string{
		`{"event":"turn_end","outcome":"completed","tokens":123,"window_id":"w\u00e9\"x"}`,
		`{"event":"tool","name":"wipe_memory","args":{"note":"a","n":[1,2,{"x":null}]}}`,
		`{"event":"request","tokens":1.5}`, `{"event":"request","tokens":1e999}`,
		`{"event":"request","tokens":-0,"idle":true,"queued":false}`,
		`{"event":"session_start","reason":"nope"}`, `{"event":"request","event":"turn_end"}`,
		`{"event":"request","tokens":"x","tokens":5}`, `{"event":"request","nope":1}`,
		` { "event" : "settled" , "aborted" : true } `, `{"event":null}`, `{}`, `[]`, `null`,
		`{"event":"command","args":"set force 1e3"}`, `{"event":"request"} {}`, "{\"event\":\"request\",\"window_id\":\"\xff\"}",
		// Every common fact in contract order, and numbers of 8, 13, 15,
		// 16 and 17 digits, which the fast path reads eight at a time.
		`{"event":"turn_end","window_id":"w-3f2a9c1d","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":2}`,
		`{"event":"request","tokens":12345678,"context_window":123456789012345,"reserve":1234567890123456}`,
		`{"event":"request","now_ms":12345678901234567,"tokens":00000001}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, `\u`) {
			// encoding/json and fastjson decode lone surrogates
			// differently; both yield valid UTF-8.
			return
		}
		var d engine.Decoder
		got, err1 := d.Decode([]byte(line))
		want, err2 := reference(line)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: decoder error %v, reference error %v", line, err1, err2)
		}
		if err1 != nil {
			if !strings.HasPrefix(err2.Error(), "not a JSON object") && !strings.HasPrefix(err2.Error(), "one JSON") && err1.Error() != err2.Error() {
				t.Fatalf("%q: decoder error %v, reference error %v", line, err1, err2)
			}
			return
		}
		if got.Name() != want.Name() {
			t.Fatalf("%q: name %q vs %q", line, got.Name(), want.Name())
		}
		ev, _ := contract.LookupEvent(want.Name())
		for _, fact := range ev.AllFacts() {
			a, _ := got.Fact(fact.Name)
			b, _ := want.Fact(fact.Name)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: fact %s = %#v, reference %#v", line, fact.Name, a, b)
			}
		}
	})
}

func reference(line string) (engine.Event, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(line)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return engine.Event{}, errNotObject
	}
	// (dec.More is false before a stray "}", which the old reader let
	// pass; the rest of the line must be blank.)
	if strings.Trim(line[dec.InputOffset():], " \t\r\n") != "" || m == nil {
		return engine.Event{}, errNotObject
	}
	return engine.NewEvent(m)
}

var errNotObject = notObject{}

type notObject struct{}

func (notObject) Error() string { return "not a JSON object" }
