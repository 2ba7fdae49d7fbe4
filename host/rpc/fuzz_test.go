package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	// Session names at their bound and one past it.
	for _, n := range []int{MaxSessionName, MaxSessionName + 1} {
		name := strings.Repeat("n", n)
		seeds = append(seeds,
			`{"jsonrpc":"2.0","id":6,"method":"decide","params":{"session":"`+name+`","event":{"event":"request"}}}`,
			`{"jsonrpc":"2.0","id":7,"method":"restore","params":{"session":"`+name+`","state":{"request_window":"w"}}}`)
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
