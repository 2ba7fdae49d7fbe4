package rpc

import (
	"encoding/json"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/session"
)

// branch builds a Pi session with a system prompt and one exchange, and
// returns it.
func branch(t *testing.T) *session.Session {
	t.Helper()
	s := session.New(session.Options{NewID: session.SeqIDs(1)})
	must := func(_ *session.Entry, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AppendMessage(session.SystemMessage{Content: session.Text("You are a coding agent.")}))
	must(s.AppendMessage(session.UserMessage{Content: session.Text("fix the bug")}))
	must(s.AppendMessage(session.AssistantMessage{Content: []session.Block{session.TextBlock("done")}, StopReason: "stop"}))
	return s
}

func entriesJSON(path []*session.Entry) []json.RawMessage {
	out := make([]json.RawMessage, len(path))
	for i, e := range path {
		out[i] = e.Bytes()
	}
	return out
}

// appendDrafts appends drafts returned by the server, as Pi does with a
// boundary result.
func appendDrafts(t *testing.T, s *session.Session, raw []json.RawMessage) {
	t.Helper()
	drafts := make([]session.Draft, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &drafts[i]); err != nil {
			t.Fatalf("draft %s: %v", r, err)
		}
	}
	if _, err := s.AppendDrafts(drafts); err != nil {
		t.Fatal(err)
	}
}

// Seed 000, "A new boundary is ordered as: 1. A native compaction entry
// with summary "" and firstKeptEntryId set to its own ID ... 2. A
// reset-marker custom entry with { windowId }. 3. A hidden boot custom
// message ... 4. A hidden continuation message." Built by the server,
// appended as Pi appends a turn_end result, then confirmed, inspected and
// projected through the server.
func TestBoundaryRoundTrip(t *testing.T) {
	srv := newTestServer(t)
	s := branch(t)
	var b struct {
		WindowID string            `json:"windowId"`
		Entries  []json.RawMessage `json:"entries"`
	}
	ok(t, call(t, srv, "boundary", map[string]any{}), &b)
	if len(b.WindowID) < 4 || len(b.Entries) != 4 {
		t.Fatalf("boundary: %+v", b)
	}
	var first map[string]any
	json.Unmarshal(b.Entries[0], &first)
	if first["type"] != "compaction" || first["summary"] != "" || first["firstKeptEntryId"] != nil {
		t.Fatalf("first draft: %s", b.Entries[0])
	}
	var committed struct {
		Committed bool   `json:"committed"`
		Reason    string `json:"reason"`
	}
	ok(t, call(t, srv, "committed", map[string]any{"entries": entriesJSON(s.Path()), "windowId": b.WindowID}), &committed)
	if committed.Committed {
		t.Fatal("committed before the boundary was appended")
	}
	appendDrafts(t, s, b.Entries)
	path := s.Path()
	types := []string{}
	for _, e := range path[len(path)-4:] {
		types = append(types, e.Type()+":"+e.CustomType())
	}
	want := []string{"compaction:", "custom:" + session.MarkerType, "custom_message:" + session.BootType, "custom_message:" + session.ContinuationType}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("order %v, want %v", types, want)
		}
	}
	if !session.IsTrustedCheckpoint(path[len(path)-4]) {
		t.Error("the compaction is not a retain-none checkpoint")
	}
	ok(t, call(t, srv, "committed", map[string]any{"entries": entriesJSON(path), "windowId": b.WindowID}), &committed)
	if !committed.Committed {
		t.Fatalf("not committed: %s", committed.Reason)
	}

	var win struct {
		WindowID string `json:"windowId"`
	}
	ok(t, call(t, srv, "activeWindow", map[string]any{"entries": entriesJSON(path)}), &win)
	if win.WindowID != b.WindowID {
		t.Errorf("activeWindow = %q, want %q", win.WindowID, b.WindowID)
	}

	var pr struct {
		Mode     string            `json:"mode"`
		Messages []json.RawMessage `json:"messages"`
	}
	ok(t, call(t, srv, "project", map[string]any{"entries": entriesJSON(path)}), &pr)
	if pr.Mode != "checkpoint" {
		t.Errorf("mode = %q", pr.Mode)
	}
	for _, m := range pr.Messages {
		var msg map[string]any
		json.Unmarshal(m, &msg)
		if msg["role"] == "user" || msg["role"] == "assistant" {
			t.Errorf("pre-reset conversation in the projection: %s", m)
		}
	}

	var tail struct {
		Status string `json:"status"`
	}
	ok(t, call(t, srv, "inspectTail", map[string]any{"entries": entriesJSON(path)}), &tail)
	if tail.Status != "complete" {
		t.Errorf("tail status = %q", tail.Status)
	}
}

// Seed 000: "Startup/tree repair is narrow: it may complete a repairable
// marker tail" — a boundary whose continuation was lost is completed by
// the server's repair drafts, never with a compaction.
func TestRepairCompletesTail(t *testing.T) {
	srv := newTestServer(t)
	s := branch(t)
	var b struct {
		WindowID string            `json:"windowId"`
		Entries  []json.RawMessage `json:"entries"`
	}
	ok(t, call(t, srv, "boundary", map[string]any{"windowId": "w7"}), &b)
	appendDrafts(t, s, b.Entries[:3]) // the continuation is missing
	var rep struct {
		Status  string            `json:"status"`
		Missing []string          `json:"missing"`
		Entries []json.RawMessage `json:"entries"`
	}
	ok(t, call(t, srv, "repair", map[string]any{"entries": entriesJSON(s.Path())}), &rep)
	if rep.Status != "repairable" || len(rep.Missing) != 1 || rep.Missing[0] != "continuation" || len(rep.Entries) != 1 {
		t.Fatalf("repair: %+v", rep)
	}
	appendDrafts(t, s, rep.Entries)
	var committed struct {
		Committed bool `json:"committed"`
	}
	ok(t, call(t, srv, "committed", map[string]any{"entries": entriesJSON(s.Path()), "windowId": "w7"}), &committed)
	if !committed.Committed {
		t.Error("not committed after repair")
	}
	ok(t, call(t, srv, "repair", map[string]any{"entries": entriesJSON(s.Path())}), &rep)
	if rep.Status != "complete" || len(rep.Entries) != 0 {
		t.Errorf("second repair: %+v", rep)
	}
}

// Seed 001: "Build the reset boundary immediately and return it" from
// session_before_compact; session_compact is matched by window id.
func TestCompactionResetAndFind(t *testing.T) {
	srv := newTestServer(t)
	s := branch(t)
	var cr struct {
		WindowID string          `json:"windowId"`
		Result   json.RawMessage `json:"result"`
	}
	ok(t, call(t, srv, "compactionReset", map[string]any{"tokensBefore": 1234}), &cr)
	var res struct {
		Compaction map[string]any `json:"compaction"`
	}
	json.Unmarshal(cr.Result, &res)
	if res.Compaction["summary"] != "" || res.Compaction["firstKeptEntryId"] != nil || res.Compaction["tokensBefore"] != float64(1234) {
		t.Fatalf("result: %s", cr.Result)
	}
	var found struct {
		Found   bool   `json:"found"`
		EntryID string `json:"entryId"`
	}
	ok(t, call(t, srv, "findCompactionReset", map[string]any{"entries": entriesJSON(s.Path()), "windowId": cr.WindowID}), &found)
	if found.Found {
		t.Fatal("found before it was written")
	}
	var bcr session.BeforeCompactResult
	bcr.Compaction = &session.CompactionResult{Summary: "", TokensBefore: 1234, Details: session.Raw(map[string]string{"windowId": cr.WindowID})}
	e := bcr.Apply(s)
	ok(t, call(t, srv, "findCompactionReset", map[string]any{"entries": entriesJSON(s.Path()), "windowId": cr.WindowID}), &found)
	if !found.Found || found.EntryID != e.ID() {
		t.Errorf("found = %+v, want %s", found, e.ID())
	}
	var at struct {
		Compacted bool `json:"compacted"`
	}
	ok(t, call(t, srv, "compactedAtLeaf", map[string]any{"entries": entriesJSON(s.Path())}), &at)
	if !at.Compacted {
		t.Error("compactedAtLeaf false after a compaction")
	}
}

// Seed 002: "The extension adds a self-retaining Pi compaction entry."
func TestCheckpointDraft(t *testing.T) {
	srv := newTestServer(t)
	var c struct {
		Entry map[string]any `json:"entry"`
	}
	ok(t, call(t, srv, "checkpoint", map[string]any{"summary": "## Goal\nfix it"}), &c)
	if c.Entry["type"] != "compaction" || c.Entry["summary"] != "## Goal\nfix it" || c.Entry["firstKeptEntryId"] != nil {
		t.Errorf("entry: %v", c.Entry)
	}
	if r := call(t, srv, "checkpoint", map[string]any{"summary": ""}); r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Errorf("empty summary accepted: %+v", r)
	}
}

// Seed 000: "/tree summary generation is suppressed with an empty summary
// when either branch crosses a reset".
func TestSuppressTreeSummary(t *testing.T) {
	srv := newTestServer(t)
	s := branch(t)
	fork := s.Leaf()
	var b struct {
		Entries []json.RawMessage `json:"entries"`
	}
	ok(t, call(t, srv, "boundary", map[string]any{"windowId": "w2"}), &b)
	appendDrafts(t, s, b.Entries)
	oldPath := s.Path()
	newPath := s.PathTo(fork)
	var r struct {
		Suppress bool            `json:"suppress"`
		Result   json.RawMessage `json:"result"`
	}
	ok(t, call(t, srv, "suppressTreeSummary", map[string]any{"oldPath": entriesJSON(oldPath), "newPath": entriesJSON(newPath)}), &r)
	if !r.Suppress || string(r.Result) != `{"summary":{"summary":""}}` {
		t.Errorf("crossing a reset: %+v", r)
	}
	ok(t, call(t, srv, "suppressTreeSummary", map[string]any{"oldPath": entriesJSON(newPath), "newPath": entriesJSON(newPath)}), &r)
	if r.Suppress {
		t.Error("suppressed without a reset")
	}
}

// The boot and continuation texts come from the policy's messages named
// boot and continuation; a policy without them gets the defaults.
func TestBoundaryTextsFromPolicy(t *testing.T) {
	srv := newTestServer(t)
	var b struct {
		Entries []map[string]any `json:"entries"`
	}
	ok(t, call(t, srv, "boundary", map[string]any{"windowId": "w2"}), &b)
	var init InitializeResult
	ok(t, call(t, srv, "initialize", map[string]any{}), &init)
	if b.Entries[2]["content"] != init.Surface.Messages["boot"] {
		t.Errorf("boot = %q, want the policy's", b.Entries[2]["content"])
	}
	dir := writeProject(t, "use \"autocompacter\" {}\n")
	ok(t, call(t, srv, "initialize", map[string]any{"projectDir": dir, "trusted": true}), nil)
	ok(t, call(t, srv, "boundary", map[string]any{"windowId": "w3"}), &b)
	if b.Entries[2]["content"] != DefaultBootText || b.Entries[3]["content"] != DefaultContinuationText {
		t.Errorf("defaults not used: %v", b.Entries[2:])
	}
}
