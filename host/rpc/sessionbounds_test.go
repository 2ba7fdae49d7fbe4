package rpc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/settings"
)

// A session name is at most MaxSessionName bytes: a longer one is a
// JSON-RPC error for every method that takes one, and no session is kept.
func TestSessionNamesAreBounded(t *testing.T) {
	s := newTestServer(t)
	at, over := strings.Repeat("n", MaxSessionName), strings.Repeat("n", MaxSessionName+1)
	ok(t, decideIn(t, s, at, map[string]any{"event": "request"}), nil)
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"decide", map[string]any{"session": over, "event": map[string]any{"event": "request"}}},
		{"restore", map[string]any{"session": over, "state": map[string]any{}}},
		{"snapshot", map[string]any{"session": over}},
	} {
		r := call(t, s, c.method, c.params)
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, fmt.Sprintf("at most %d", MaxSessionName)) {
			t.Errorf("%s: %+v", c.method, r.Error)
		}
	}
	if s.sessions.len() != 1 {
		t.Fatalf("%d sessions; want only the one at the bound", s.sessions.len())
	}
	if MaxSessionName != 256 || DefaultMaxSessionBytes != 64<<20 {
		t.Fatalf("bounds moved: %d, %d; the README says 256 and 64 MiB", MaxSessionName, DefaultMaxSessionBytes)
	}
}

// The sessions' total size is bounded as their count is: past
// MaxSessionBytes the least recently used go, whatever their count.
func TestSessionsAreBoundedBySize(t *testing.T) {
	userDir := t.TempDir()
	const bound = 1 << 20
	s := New(Options{
		Settings: func(dir string, trusted bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, UserConfigDir: userDir})
		},
		MaxSessionBytes: bound,
	})
	long := strings.Repeat("w", 100<<10)
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("s%02d", i)
		ok(t, call(t, s, "restore", map[string]any{"session": name, "state": map[string]any{"request_window": long}}), nil)
		if s.sessions.bytes > bound {
			t.Fatalf("after %d sessions: %d bytes held, over the bound %d", i+1, s.sessions.bytes, bound)
		}
	}
	if n := s.sessions.len(); n < 5 || n > 10 {
		t.Fatalf("%d sessions of 100 KB kept under 1 MiB", n)
	}
	// The most recent survives, the oldest went.
	if r := call(t, s, "snapshot", map[string]any{"session": "s49"}); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if r := call(t, s, "snapshot", map[string]any{"session": "s00"}); r.Error == nil {
		t.Fatal("the least recently used session was kept")
	}
	// A decide that grows a state counts too, and the totals stay exact
	// when sessions close.
	total := 0
	for e := s.sessions.head.next; e != &s.sessions.head; e = e.next {
		total += e.size
	}
	if total != s.sessions.bytes {
		t.Fatalf("total %d, sum of sizes %d", s.sessions.bytes, total)
	}
	ok(t, call(t, s, "closeSession", map[string]any{"session": "s49"}), nil)
	if s.sessions.len() == 0 || s.sessions.bytes >= total {
		t.Fatalf("closing did not release its size: %d", s.sessions.bytes)
	}
}

// 5,000 evictions with a stderr nobody reads: the server neither blocks
// nor writes a line per eviction. One line per eviction filled a 64 KiB
// pipe after about 600 and stopped the server.
func TestEvictionsDoNotBlockOnAnUnreadLog(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	userDir := t.TempDir()
	s := New(Options{
		Settings: func(dir string, trusted bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, UserConfigDir: userDir})
		},
		Log:         w,
		MaxSessions: 1,
	})
	var in bytes.Buffer
	const n = 5_001
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"decide","params":{"session":"session-%d-%s","event":{"event":"request"}}}`+"\n", i, i, strings.Repeat("x", 200))
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(&in, io.Discard) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server blocked on its log")
	}
	w.Close()
	sc := bufio.NewScanner(r)
	lines := 0
	last := ""
	for sc.Scan() {
		lines++
		last = sc.Text()
	}
	// 10 lines, then one at 100 and 1,000 evictions (5,000 is no power of ten).
	if lines != logBurst+2 || !strings.Contains(last, "1000 times so far") {
		t.Fatalf("%d lines, the last %q", lines, last)
	}
}

func TestLogIsBoundedByKind(t *testing.T) {
	var log bytes.Buffer
	s := New(Options{Log: &log})
	for i := 1; i <= 100_000; i++ {
		s.logf("kind a %d", i)
	}
	s.logf("kind b %s", strings.Repeat("é", maxLogLine))
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	// 10, then 100, 1,000, 10,000 and 100,000; then kind b once.
	if len(lines) != logBurst+4+1 || !strings.Contains(lines[logBurst+3], "100000 times so far") || !strings.HasSuffix(lines[logBurst+3], "kind a 100000") {
		t.Fatalf("%d lines:\n%s", len(lines), strings.Join(lines[:min(len(lines), 20)], "\n"))
	}
	if b := lines[len(lines)-1]; len(b) > maxLogLine+len("resetpolicy serve: …") || !strings.HasSuffix(b, "…") {
		t.Fatalf("long line not cut: %d bytes", len(b))
	}
	if logBurst != 10 || maxLogLine != 1024 || noticeDiagnostics != 3 {
		t.Fatalf("logBurst %d, maxLogLine %d, noticeDiagnostics %d; the README says 10, 1,024 and 3", logBurst, maxLogLine, noticeDiagnostics)
	}
}
