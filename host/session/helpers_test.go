package session

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/session")

func goldenPath(name string) string { return filepath.Join("..", "..", "testdata", "session", name) }

// golden compares got with the named golden file, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := goldenPath(name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clock returns a clock that starts at t0 and advances a second a call.
func clock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n-1) * time.Second)
	}
}

func testOptions() Options {
	return Options{ID: "019b7c1e-0000-7000-8000-000000000001", CWD: "/work/project", Now: clock(), NewID: SeqIDs(1),
		TokensBefore: func(path []*Entry) int64 { return int64(1000 * len(path)) }}
}

// fixture builds sessions tersely; any error fails the test.
type fixture struct {
	t *testing.T
	s *Session
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{t: t, s: New(testOptions())}
}

func (f *fixture) msg(m Message) *Entry {
	f.t.Helper()
	e, err := f.s.AppendMessage(m)
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

func (f *fixture) system() *Entry {
	return f.msg(SystemMessage{Content: Text("You are a coding agent."),
		Sections:   map[string]*string{"cwd": ptr("/work/project")},
		ToolsAdded: []Tool{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Timestamp:  t0.UnixMilli()})
}

func (f *fixture) user(text string) *Entry {
	return f.msg(UserMessage{Content: Text(text), Timestamp: t0.UnixMilli()})
}

func (f *fixture) assistant(text string, tokens int64) *Entry {
	return f.msg(AssistantMessage{Content: []Block{TextBlock(text)}, API: "acme-messages", Provider: "acme",
		Model: "acme-large", Usage: Usage{Input: tokens - 10, Output: 10, TotalTokens: tokens},
		StopReason: "stop", Timestamp: t0.UnixMilli()})
}

func (f *fixture) toolTurn(callID string) {
	f.msg(AssistantMessage{Content: []Block{ToolCallBlock(callID, "read", json.RawMessage(`{"path":"a.go"}`))},
		API: "acme-messages", Provider: "acme", Model: "acme-large",
		Usage: Usage{Input: 90, Output: 10, TotalTokens: 100}, StopReason: "toolUse", Timestamp: t0.UnixMilli()})
	f.msg(ToolResultMessage{ToolCallID: callID, ToolName: "read", Content: []Block{TextBlock("package a")}, Timestamp: t0.UnixMilli()})
}

var testMsgs = BoundaryMessages{Boot: Text("Fresh window. Read your notes."), Continuation: Text("Continue.")}

// reset appends a full boundary for the window and returns its entries.
func (f *fixture) reset(window string) []*Entry {
	f.t.Helper()
	d, err := Boundary(window, testMsgs)
	if err != nil {
		f.t.Fatal(err)
	}
	es, err := f.s.AppendDrafts(d)
	if err != nil {
		f.t.Fatal(err)
	}
	return es
}

func (f *fixture) marker(window string) *Entry {
	return f.s.AppendCustom(MarkerType, windowData(window))
}

func (f *fixture) boot(window string) *Entry {
	return f.s.AppendCustomMessage(BootType, testMsgs.Boot, false, windowData(window))
}

func (f *fixture) cont(window string) *Entry {
	return f.s.AppendCustomMessage(ContinuationType, testMsgs.Continuation, false, windowData(window))
}

func (f *fixture) retainNone() *Entry {
	return f.s.AppendCompaction(Compaction{Summary: ""})
}

func (f *fixture) generic(summary string, kept string) *Entry {
	return f.s.AppendCompaction(Compaction{Summary: summary, FirstKeptEntryID: kept, TokensBefore: 5000})
}

func (f *fixture) jsonl() []byte {
	f.t.Helper()
	var b bytes.Buffer
	if _, err := f.s.WriteTo(&b); err != nil {
		f.t.Fatal(err)
	}
	return b.Bytes()
}

func ptr[T any](v T) *T { return &v }

func ids(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID()
	}
	return out
}
