package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/rpc"
	"github.com/resetpolicy/resetpolicy/host/settings"
)

// Every state the engine writes reads back with eval --state: a file of
// eval output (its last line), the server's snapshot result, and a
// decision log (its last line).
func TestWrittenStatesReadBackWithEvalState(t *testing.T) {
	dir := t.TempDir()
	events := `{"event":"request","tokens":190000,"now_ms":1000000000000}` + "\n" +
		`{"event":"tool","name":"self-compact","now_ms":1000000000005}` + "\n" +
		`{"event":"turn_end","tokens":195000,"now_ms":1000000000009}` + "\n"
	out, stderr, code := runCLI(t, events, "eval", "--policy", "autocompacter")
	if code != 0 {
		t.Fatal(stderr)
	}
	// What the next event gives after the three, in one run: the state
	// read back must give the same.
	const next = `{"event":"session_tree","now_ms":1000000000010}` + "\n"
	all, stderr, code := runCLI(t, events+next, "eval", "--policy", "autocompacter")
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := parseLines(t, all)
	want := lines[len(lines)-1]

	// The same events through the server, with a decision log.
	log := filepath.Join(dir, "decisions.jsonl")
	srv := rpc.New(rpc.Options{
		Settings: func(string, bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{Environ: []string{"RESETPOLICY_POLICY=autocompacter", "RESETPOLICY_DECISION_LOG=" + log}, UserConfigDir: dir})
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	})
	defer srv.Close()
	srv.Handle([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"projectDir":"","trusted":false}}`))
	for i, ev := range strings.Split(strings.TrimSpace(events), "\n") {
		srv.Handle([]byte(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"decide","params":{"session":"s","event":` + ev + `}}`))
	}
	var snap struct{ Result json.RawMessage }
	if err := json.Unmarshal(srv.Handle([]byte(`{"jsonrpc":"2.0","id":9,"method":"snapshot","params":{"session":"s"}}`)), &snap); err != nil {
		t.Fatal(err)
	}

	files := map[string]string{"eval output": out, "snapshot result": string(snap.Result)}
	if b, err := os.ReadFile(log); err != nil {
		t.Fatal(err)
	} else {
		files["decision log"] = string(b)
	}
	for name, text := range files {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, stderr, code := runCLI(t, next, "eval", "--policy", "autocompacter", "--state", path)
		if code != 0 {
			t.Fatalf("%s: %s", name, stderr)
		}
		if g := parseLines(t, got)[0]; !sameJSON(t, g, want) {
			t.Errorf("%s: %+v, want %+v", name, g, want)
		}
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}
