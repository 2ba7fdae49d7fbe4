package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/settings"
)

func decideIn(t *testing.T, s *Server, session string, event map[string]any) response {
	t.Helper()
	return call(t, s, "decide", map[string]any{"session": session, "event": event})
}

func TestSnapshotOfUnknownSessionIsAnError(t *testing.T) {
	s := newTestServer(t)
	r := call(t, s, "snapshot", map[string]any{"session": "never"})
	if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, `unknown session "never"`) {
		t.Fatalf("want an unknown-session error, got %+v", r)
	}
	if s.sessions.len() != 0 {
		t.Error("snapshot created a session")
	}
}

func TestCloseSessionForgetsIt(t *testing.T) {
	s := newTestServer(t)
	ok(t, decideIn(t, s, "a", map[string]any{"event": "tool", "name": "wipe_memory"}), nil)
	var res struct{ Closed bool }
	ok(t, call(t, s, "closeSession", map[string]any{"session": "a"}), &res)
	if !res.Closed || s.sessions.len() != 0 {
		t.Fatalf("closed=%v, %d sessions left", res.Closed, s.sessions.len())
	}
	if r := call(t, s, "snapshot", map[string]any{"session": "a"}); r.Error == nil {
		t.Error("a closed session can still be snapshotted")
	}
	ok(t, call(t, s, "closeSession", map[string]any{"session": "a"}), &res)
	if res.Closed {
		t.Error("closing twice reports closed twice")
	}
	// decide starts it again, fresh.
	var d struct{ State map[string]any }
	ok(t, decideIn(t, s, "a", map[string]any{"event": "request"}), &d)
	if d.State["request"] != "none" {
		t.Errorf("a reopened session is not fresh: %v", d.State)
	}
}

// Sessions beyond MaxSessions evict the least recently used one: memory
// stays bounded even for a host that never closes its sessions.
func TestLeastRecentlyUsedSessionIsEvicted(t *testing.T) {
	var log bytes.Buffer
	userDir := t.TempDir()
	s := New(Options{
		Settings: func(dir string, trusted bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, UserConfigDir: userDir})
		},
		Log:         &log,
		MaxSessions: 3,
	})
	for _, name := range []string{"a", "b", "c"} {
		ok(t, decideIn(t, s, name, map[string]any{"event": "tool", "name": "wipe_memory"}), nil)
	}
	ok(t, decideIn(t, s, "a", map[string]any{"event": "request"}), nil) // a is now the most recent
	ok(t, decideIn(t, s, "d", map[string]any{"event": "request"}), nil) // evicts b
	if s.sessions.len() != 3 {
		t.Fatalf("%d sessions; want the bound, 3", s.sessions.len())
	}
	for name, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if r := call(t, s, "snapshot", map[string]any{"session": name}); (r.Error == nil) != want {
			t.Errorf("session %s kept = %v; want %v", name, r.Error == nil, want)
		}
	}
	if !strings.Contains(log.String(), `session "b" evicted`) {
		t.Errorf("eviction not logged: %q", log.String())
	}
}

func TestRestoreNamesTheSlotsItReset(t *testing.T) {
	s := newTestServer(t)
	var res struct {
		State map[string]any
		Reset []string
	}
	ok(t, call(t, s, "restore", map[string]any{"session": "a", "state": map[string]any{"request": "tool-requested", "request_window": "w9"}}), &res)
	if res.State["request"] != "tool-requested" || res.State["request_window"] != "w9" {
		t.Fatalf("state not restored: %v", res.State)
	}
	if len(res.Reset) != len(res.State)-2 || contains(res.Reset, "request") || !contains(res.Reset, "overflow") {
		t.Errorf("reset = %v; want every slot but request and request_window (%d slots)", res.Reset, len(res.State))
	}
	// A full snapshot resets nothing.
	ok(t, call(t, s, "restore", map[string]any{"session": "a", "state": res.State}), &res)
	if res.Reset == nil || len(res.Reset) != 0 {
		t.Errorf("a full restore reports reset %v; want []", res.Reset)
	}
	// A refused restore of a new session leaves no session behind.
	if r := call(t, s, "restore", map[string]any{"session": "b", "state": map[string]any{"request": "bogus"}}); r.Error == nil {
		t.Fatal("bogus state accepted")
	}
	if r := call(t, s, "snapshot", map[string]any{"session": "b"}); r.Error == nil {
		t.Error("a refused restore created session b")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Bad facts are refused at the door with the fact named, and the session
// is unchanged.
func TestDecideRefusesBadFacts(t *testing.T) {
	s := newTestServer(t)
	ok(t, decideIn(t, s, "a", map[string]any{"event": "tool", "name": "wipe_memory"}), nil)
	var before struct{ State map[string]any }
	ok(t, call(t, s, "snapshot", map[string]any{"session": "a"}), &before)
	for line, want := range map[string]string{
		`{"event":"turn_end","tokens":1e999}`:    `fact "tokens" must be a finite number, not +Inf`,
		`{"event":"turn_end","tokens":-3}`:       `fact "tokens" must not be negative, not -3`,
		`{"event":"request","context_window":0}`: `fact "context_window" must be at least 1, not 0`,
		`{"event":"request","reserve":-1}`:       `fact "reserve" must not be negative`,
		`{"event":"request","now_ms":-1e400}`:    `fact "now_ms" must be a finite number, not -Inf`,
		`{"event":"tool","args":{"x":[-1e999]}}`: `fact "args" must hold finite numbers only, not -Inf at args.x[0]`,
	} {
		var r response
		out := s.Handle([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"a","event":%s}}`, line)))
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, want) {
			t.Errorf("%s: got %s; want %s", line, out, want)
		}
	}
	var after struct{ State map[string]any }
	ok(t, call(t, s, "snapshot", map[string]any{"session": "a"}), &after)
	if !reflect.DeepEqual(before.State, after.State) {
		t.Errorf("refused events changed the state: %v -> %v", before.State, after.State)
	}
}

// The decide path's allocation budget: at most 3 per request.
func TestDecideAllocations(t *testing.T) {
	s := newTestServer(t)
	if out := s.Handle(decideLine); !bytes.Contains(out, []byte(`"result"`)) {
		t.Fatalf("%s", out)
	}
	var resp []byte
	if n := testing.AllocsPerRun(200, func() { resp = s.handle(resp[:0], decideLine) }); n > 3 {
		t.Errorf("decide allocates %v times per request; the budget is 3", n)
	}
}

// An idle session costs less than 2 KB of heap, so 10,000 of them fit in
// 20 MB (BenchmarkManySessions measures it at 10,000).
func TestIdleSessionHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 5,000 sessions")
	}
	const n = 5000
	s := newTestServer(t)
	s.sessions.max = n + 1
	var resp []byte
	resp = s.handle(resp[:0], decideLine)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s-%08d", i)
		resp = s.handle(resp[:0], []byte(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"`+id+`","event":{"event":"tool","name":"wipe_memory","args":{"why":"full"}}}}`))
		resp = s.handle(resp[:0], bytes.Replace(decideLine, []byte("019b7c1e-0000-7000-8000-000000000001"), []byte(id), 1))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if got := s.sessions.len(); got != n+1 {
		t.Fatalf("%d sessions", got)
	}
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	if per > 2048 {
		t.Errorf("%.0f bytes of heap per idle session; the bound is 2048", per)
	}
	runtime.KeepAlive(s)
}

// The built-in default, asked for unchanged, is compiled on use; a project
// policy loads in its place, compiled when it loads, and a later
// initialize without the project brings the default back.
func TestServedDefaultPolicy(t *testing.T) {
	userDir := t.TempDir()
	newServer := func() *Server {
		return New(Options{
			Settings: func(dir string, trusted bool) (*settings.Settings, error) {
				return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, UserConfigDir: userDir})
			},
		})
	}
	var res InitializeResult
	s := newServer()
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), &res)
	if res.Policy.Name != "wipe_memory" || res.Policy.Source != "builtin" || len(res.Surface.Tools) == 0 {
		t.Fatalf("default initialize: %+v", res.Policy)
	}
	if !s.cur.pol.CompilesOnUse() {
		t.Error("serve compiles the default's rules at load")
	}
	ok(t, decideIn(t, s, "a", map[string]any{"event": "tool", "name": "wipe_memory"}), nil)

	s = newServer()
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": writeProject(t, "use \"new_context\" {}\n"), "trusted": true}), &res)
	if res.Policy.Name != "new_context" {
		t.Fatalf("a project policy lost to the default: %+v", res.Policy)
	}
	if s.cur.pol.CompilesOnUse() {
		t.Error("a project's policy file is compiled on use, not at load")
	}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), &res)
	if res.Policy.Name != "wipe_memory" {
		t.Fatalf("second initialize: %+v", res.Policy)
	}
}
