package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// FuzzHandle feeds arbitrary lines to the line handler: it must never
// panic, and every answer must be one JSON-RPC response (or a batch of
// them) that is valid JSON.
func FuzzHandle(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"s","event":{"event":"tool","name":"wipe_memory"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"projectDir":"","trusted":false}}`,
		`{"jsonrpc":"2.0","id":2,"method":"committed","params":{"entries":[{"type":"custom","id":"a","parentId":null,"customType":"resetpolicy/reset-marker","data":{"windowId":"w"}}],"windowId":"w"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"project","params":{"entries":[{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"restore","params":{"session":"s","state":{"request":"none"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"snapshot","params":{"session":"a"}},1]`,
		`{"jsonrpc":"2.0","id":5,"method":"repair","params":{"entries":[]}}`,
		`{`, `[]`, `null`, `{"jsonrpc":"2.0"}`, "\x00", `{"jsonrpc":"2.0","id":1e999,"method":"x"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// Every recorded event stream, line by line, as decide requests, and
	// every recorded session as the entries of the mechanics methods.
	streams, _ := filepath.Glob("../../testdata/eval/*.jsonl")
	sessions, _ := filepath.Glob("../../testdata/session/*.jsonl")
	if len(streams) == 0 || len(sessions) == 0 {
		f.Fatal("no seed files under testdata/eval and testdata/session")
	}
	for _, p := range streams {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"s","event":` + string(line) + `}}`))
		}
	}
	for _, p := range sessions {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		entries := "[" + string(bytes.Join(bytes.Split(bytes.TrimSpace(b), []byte("\n")), []byte(","))) + "]"
		for _, m := range []string{"project", "repair", "inspectTail", "activeWindow"} {
			f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"` + m + `","params":{"entries":` + entries + `}}`))
		}
	}
	srv := newTestServer(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.Contains(line, []byte("saveParam")) || bytes.Contains(line, []byte("clearParam")) || bytes.Contains(line, []byte("initialize")) {
			return // these touch files and settings
		}
		out := srv.Handle(line)
		if len(out) == 0 {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON response %q for %q", out, line)
		}
		if out[0] != '{' && out[0] != '[' {
			t.Fatalf("response is neither an object nor a batch: %q", out)
		}
	})
}

// FuzzParseEvent checks the decide path's event scanner against the
// engine's own parser: both accept the same lines and read the same facts.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{
		`{"event":"turn_end","outcome":"completed","tokens":123,"window_id":"w\u00e9\"x"}`,
		`{"event":"tool","name":"wipe_memory","args":{"note":"a","n":[1,2,{"x":null}]}}`,
		`{"event":"request","tokens":1.5}`,
		`{"event":"request","tokens":-0,"idle":true,"queued":false}`,
		`{"event":"session_start","reason":"nope"}`,
		`{"event":"request","event":"turn_end"}`,
		`{"event":"request","nope":1}`,
		` { "event" : "settled" , "aborted" : true } `,
		`{"event":null}`, `{}`, `{"event":"command","args":"set force 1e3"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.TrimSpace(line)
		if !json.Valid(line) || len(line) == 0 || line[0] != '{' {
			return
		}
		got, err1 := parseEvent(line)
		want, err2 := engine.ParseEvent(line)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: scanner error %v, engine error %v", line, err1, err2)
		}
		if err1 != nil {
			return
		}
		if got.Name() != want.Name() {
			t.Fatalf("%s: name %q vs %q", line, got.Name(), want.Name())
		}
		ev, _ := contract.LookupEvent(want.Name())
		for _, fact := range ev.AllFacts() {
			a, _ := got.Fact(fact.Name)
			b, _ := want.Fact(fact.Name)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: fact %s = %#v, engine %#v", line, fact.Name, a, b)
			}
		}
	})
}
