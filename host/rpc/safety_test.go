package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/settings"
)

// The decision log is only ever a regular file: not through a final
// symlink, not a FIFO or a device, not the server's stdout. Refused, it is
// a warning and decisions go on.
func TestDecisionLogIsARegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.jsonl")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	symlink := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, symlink); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout := filepath.Join(dir, "stdout.jsonl")
	f, err := os.Create(stdout)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdout
	os.Stdout = f
	defer func() { os.Stdout = saved }()

	for _, c := range []struct{ path, want string }{
		{symlink, "is a symlink"},
		{fifo, "is a FIFO"},
		{"/dev/null", "is a device"},
		{dir, "is a directory"},
		{stdout, "the server's stdout"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			s := newTestServer(t, "RESETPOLICY_DECISION_LOG="+c.path)
			defer s.Close()
			done := make(chan InitializeResult, 1)
			go func() {
				var res InitializeResult
				ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), &res)
				done <- res
			}()
			var res InitializeResult
			select {
			case res = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("opening the decision log blocked")
			}
			if res.DecisionLog != "" || !strings.Contains(res.Error, c.want) {
				t.Fatalf("decisionLog %q, error %q; want it refused: %s", res.DecisionLog, res.Error, c.want)
			}
			ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "request"}}), nil)
		})
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Fatalf("the symlink's target was written: %s", b)
	}
	if b, _ := os.ReadFile(stdout); len(b) != 0 {
		t.Fatalf("stdout was written: %s", b)
	}
}

// A trusted project's settings naming a file outside the project are
// refused with a notice naming the setting; the built-in stays in force.
func TestProjectSettingsOutsideTheProjectFallBack(t *testing.T) {
	outside := t.TempDir()
	for _, yaml := range []string{
		"policy: " + filepath.Join(outside, "p.hcl") + "\n",
		"decision_log: " + filepath.Join(outside, "d.jsonl") + "\n",
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".pi"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, settings.ProjectConfigFile), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outside, "p.hcl"), []byte("use \"new_context\" {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := newTestServer(t)
		var res InitializeResult
		ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
		key, _, _ := strings.Cut(yaml, ":")
		if res.Policy.Name != "wipe_memory" || !res.Fallback || !strings.Contains(res.Error, key+":") || !strings.Contains(res.Error, "outside the project directory") || !strings.Contains(res.Error, "wipe_memory (built-in) stays in force") {
			t.Fatalf("%s: policy %q, fallback %v, error %q", key, res.Policy.Name, res.Fallback, res.Error)
		}
		if _, err := os.Stat(filepath.Join(outside, "d.jsonl")); err == nil {
			t.Fatal("the log outside the project was created")
		}
		s.Close()
	}
}

// A file that fails to load is quoted in the notice by a few lines at
// most: it may be any file at all.
func TestLoadFailureNoticeQuotesAFewLines(t *testing.T) {
	var secret strings.Builder
	for i := 0; i < 200; i++ {
		secret.WriteString("SECRET-LINE ~~ not hcl\n")
	}
	dir := writeProject(t, secret.String())
	s := newTestServer(t)
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	if !res.Fallback {
		t.Fatal("loaded")
	}
	if n := strings.Count(res.Error, "SECRET-LINE"); n == 0 || n > noticeDiagnostics {
		t.Fatalf("the notice quotes %d lines of the file:\n%s", n, res.Error)
	}
	if len(res.Diagnostics) > 21 {
		t.Fatalf("%d diagnostics returned", len(res.Diagnostics))
	}
}

// Every state the server writes reads back: a snapshot result and a
// decision log line restore to the same state.
func TestWrittenStatesRestore(t *testing.T) {
	log := filepath.Join(t.TempDir(), "d.jsonl")
	s := newTestServer(t, "RESETPOLICY_DECISION_LOG="+log, "RESETPOLICY_POLICY=autocompacter")
	defer s.Close()
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), nil)
	for _, ev := range []map[string]any{
		{"event": "request", "tokens": 190000, "now_ms": 1e12},
		{"event": "tool", "name": "self-compact", "now_ms": 1e12 + 5},
		{"event": "turn_end", "now_ms": 1e12 + 9, "tokens": 195000},
	} {
		ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": ev}), nil)
	}
	var snap struct{ State map[string]any }
	r := call(t, s, "snapshot", map[string]any{"session": "a"})
	ok(t, r, &snap)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for name, written := range map[string]json.RawMessage{
		"snapshot result":     r.Result,
		"decision log line":   json.RawMessage(lines[len(lines)-1]),
		"snapshot state only": mustJSON(t, snap.State),
	} {
		var got struct{ State map[string]any }
		ok(t, call(t, s, "restore", map[string]any{"session": "b:" + name, "state": written}), &got)
		if !jsonEqual(t, got.State, snap.State) {
			t.Errorf("%s: restored %v, want %v", name, got.State, snap.State)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonEqual(t *testing.T, a, b any) bool { return string(mustJSON(t, a)) == string(mustJSON(t, b)) }

// A policy that fails to load is quoted with its line and caret; what stays
// in force is a line of its own after the caret, not glued to it.
func TestFailedLoadNoticeEndsOnItsOwnLine(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".pi", "resetpolicy.hcl"), []byte("use \"wipe_memroy\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t)
	defer s.Close()
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	lines := strings.Split(res.Error, "\n")
	last, caret := lines[len(lines)-1], lines[len(lines)-2]
	if !res.Fallback || last != "wipe_memory (built-in) stays in force, nothing was reset." || !strings.HasSuffix(caret, "^") {
		t.Errorf("notice:\n%s", res.Error)
	}
}
