package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Issue 4 item 1: "Writes and reads Pi-format JSONL" — a file as Pi 1.6
// writes it, with members and an entry type this package does not know,
// is written back byte for byte.
func TestReadWrite_PiJSONLRoundTripIsLossless(t *testing.T) {
	in, err := os.ReadFile(goldenPath("pi_v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(bytes.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := s.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("round trip changed the file\n--- got\n%s\n--- want\n%s", out.Bytes(), in)
	}
	if got := s.Header().Version(); got != 3 {
		t.Errorf("version = %d", got)
	}
	if got := string(s.Header().Field("futureHeaderField")); got != `{"kept":true}` {
		t.Errorf("unknown header member = %s", got)
	}
	// The leaf is the last entry; the branch follows parentId through the
	// branch_summary back to the root.
	if got, want := ids(s.Path()), []string{"a0b1c2d3", "a1b2c3d4", "f2a3b4c5", "a3b4c5d6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("path = %v, want %v", got, want)
	}
	if got := len(s.PathTo("e1f2a3b4")); got != 13 {
		t.Errorf("abandoned branch length = %d, want 13", got)
	}
	roles := map[string]string{"a0b1c2d3": "system", "a1b2c3d4": "user", "b2c3d4e5": "assistant", "c3d4e5f6": "toolResult"}
	for id, want := range roles {
		if got := s.Entry(id).Role(); got != want {
			t.Errorf("%s role = %q, want %q", id, got, want)
		}
	}
	a, err := DecodeAssistant(s.Entry("b2c3d4e5").Message())
	if err != nil {
		t.Fatal(err)
	}
	if a.Usage.TotalTokens != 120 || a.StopReason != "toolUse" || len(a.ToolCalls()) != 1 || a.ToolCalls()[0].Name != "bash" {
		t.Errorf("assistant decoded as %+v", a)
	}
}

// Issue 4 item 1: the entries Pi 1.6 writes — header, message (user,
// assistant with usage, toolResult, custom), compaction, custom,
// custom_message — with ids and parent ids forming a branch, in Pi's
// member order.
func TestNew_WritesPiFormat(t *testing.T) {
	f := newFixture(t)
	sys := f.system()
	f.user("Fix the bug in a.go")
	f.toolTurn("call_1")
	f.assistant("Done.", 1200)
	f.s.AppendModelChange("openai", "gpt-4o")
	f.s.AppendThinkingLevelChange("high")
	f.s.AppendCustom("my-extension", Raw(map[string]int{"count": 42}))
	f.s.AppendCustomMessage("my-extension", Text("Injected <context> & more"), true, nil)
	f.msg(CustomMessage{CustomType: "old-hook", Content: Text("legacy"), Display: false, Timestamp: t0.UnixMilli()})
	if _, err := f.s.AppendLabel(sys.ID(), "start"); err != nil {
		t.Fatal(err)
	}
	f.generic("Summary of the work.", "00000003")
	got := f.jsonl()
	golden(t, "built.jsonl", got)

	s, err := Read(bytes.NewReader(got), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if _, err := s.WriteTo(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), got) {
		t.Error("a written session does not read back to the same bytes")
	}
	p := s.Path()
	for i, e := range p {
		wantParent := ""
		if i > 0 {
			wantParent = p[i-1].ID()
		}
		if e.ParentID() != wantParent {
			t.Errorf("entry %s parent = %q, want %q", e.ID(), e.ParentID(), wantParent)
		}
	}
	if !strings.HasPrefix(string(got), `{"type":"session","version":3,"id":"019b7c1e-0000-7000-8000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work/project"}`) {
		t.Errorf("header line: %s", strings.SplitN(string(got), "\n", 2)[0])
	}
	if !strings.Contains(string(got), `{"type":"message","id":"00000001","parentId":null,`) {
		t.Error("the first entry is not a root with parentId null")
	}
	if !strings.Contains(string(got), `"Injected <context> & more"`) {
		t.Error("text was HTML-escaped; Pi writes it as is")
	}
	if p[len(p)-1].Field("systemMessage") == nil {
		t.Error("the compaction has no systemMessage checkpoint")
	}
}

func TestRead_Errors(t *testing.T) {
	head := `{"type":"session","version":3,"id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/"}`
	msg := `{"type":"message","id":"a","parentId":null,"timestamp":"2024-12-03T14:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}`
	tests := []struct {
		name, in, want string
	}{
		{"malformed line names its number", head + "\n\n{not json\n", "line 3"},
		{"no header", msg + "\n", "line 1: entry before the session header"},
		{"empty file", "", "no session header"},
		{"version 1 has no ids", `{"type":"session","id":"s"}` + "\n", "version 1"},
		{"entry without id", head + "\n" + `{"type":"custom","customType":"x"}` + "\n", "line 2: custom entry has no id"},
		{"second header", head + "\n" + msg + "\n" + head + "\n", "line 3"},
		{"not an object", head + "\n[1,2]\n", "line 2"},
		{"trailing data", head + "\n" + `{"type":"x","id":"b"} {}` + "\n", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Version 2 sessions (tree ids, "hookMessage" role) are read; the role is
// reported as Pi 1.6 names it.
func TestRead_Version2HookMessageIsCustom(t *testing.T) {
	in := `{"type":"session","version":2,"id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/"}
{"type":"message","id":"a","parentId":null,"timestamp":"2024-12-03T14:00:00.000Z","message":{"role":"hookMessage","customType":"pi-context/boot","content":"boot","display":false,"details":{"windowId":"w2"},"timestamp":1}}
`
	s, err := Read(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := s.Entry("a")
	if e.Role() != "custom" || !IsBoot(e) || e.WindowID() != "w2" {
		t.Fatalf("role %q boot %v window %q", e.Role(), IsBoot(e), e.WindowID())
	}
	if got := Canonical(s.Path()).Roles(); !reflect.DeepEqual(got, []string{"custom"}) {
		t.Errorf("projected roles = %v", got)
	}
}

// Session-format.md: "id: Usually an 8-char hex ID; may fall back to a
// full UUID".
func TestIDs_PiFormatCollisionCheckedInjectable(t *testing.T) {
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(RandomID()) {
		t.Error("RandomID is not 8 hex characters")
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(RandomUUID()) {
		t.Error("RandomUUID is not a version 4 UUID")
	}
	sid := NewSessionID(t0)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(sid) {
		t.Errorf("NewSessionID %s is not a version 7 UUID", sid)
	}
	if want := fmt.Sprintf("%012x", t0.UnixMilli()); strings.ReplaceAll(sid, "-", "")[:12] != want {
		t.Errorf("NewSessionID %s does not start with the time %s", sid, want)
	}
	seq := SeqIDs(9)
	if a, b := seq(), seq(); a != "00000009" || b != "0000000a" {
		t.Errorf("SeqIDs gave %s %s", a, b)
	}

	// A colliding proposal is asked again; after 100 collisions the
	// fallback is used.
	calls := 0
	s := New(Options{ID: "s", Now: clock(), NewID: func() string { calls++; return "aaaaaaaa" }, FallbackID: SeqIDs(1)})
	first := s.AppendCustom("x", nil)
	second := s.AppendCustom("x", nil)
	if first.ID() != "aaaaaaaa" || second.ID() != "00000001" {
		t.Errorf("ids %s %s", first.ID(), second.ID())
	}
	if calls != 1+maxIDTries {
		t.Errorf("proposals = %d, want %d", calls, 1+maxIDTries)
	}
	defer func() {
		if recover() == nil {
			t.Error("endless collisions did not panic")
		}
	}()
	stuck := New(Options{ID: "s", Now: clock(), NewID: func() string { return "x" }, FallbackID: func() string { return "x" }})
	stuck.AppendCustom("x", nil)
	stuck.AppendCustom("x", nil)
}

// Pi's appendContextEdit checks: target exists, is on the active branch
// and contributes editable content; string replacements of assistant and
// tool-result content become one text block.
func TestAppendContextEdit(t *testing.T) {
	f := newFixture(t)
	sys := f.system()
	u := f.user("hi")
	a := f.assistant("hello", 100)
	if err := f.s.Branch(u.ID()); err != nil {
		t.Fatal(err)
	}
	side := f.user("side")
	tests := []struct {
		name   string
		target string
		rep    *Content
		want   string // replacement JSON, or error text
		err    bool
	}{
		{"omit", side.ID(), nil, `null`, false},
		{"user string stays a string", side.ID(), ptr(Text("x")), `{"content":"x"}`, false},
		{"unknown target", "nope", nil, "not found", true},
		{"off the active branch", a.ID(), nil, "not on the active branch", true},
		{"system message", sys.ID(), nil, "editable", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := f.s.AppendContextEdit(tt.target, tt.rep)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(e.Field("replacement")); got != tt.want {
				t.Errorf("replacement = %s, want %s", got, tt.want)
			}
		})
	}
	if err := f.s.Branch(a.ID()); err != nil {
		t.Fatal(err)
	}
	e, err := f.s.AppendContextEdit(a.ID(), ptr(Text("short")))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(e.Field("replacement")); got != `{"content":[{"type":"text","text":"short"}]}` {
		t.Errorf("assistant replacement = %s", got)
	}
	marker := f.marker("w2")
	if _, err := f.s.AppendContextEdit(marker.ID(), nil); err == nil || !strings.Contains(err.Error(), "editable") {
		t.Errorf("a custom entry as edit target: err = %v", err)
	}
}

// Drafts are written as Pi's SessionBoundaryDraft and read back.
func TestDraft_JSON(t *testing.T) {
	tests := []struct {
		name  string
		draft Draft
		want  string
	}{
		{"custom", Draft{Type: TypeCustom, CustomType: MarkerType, Data: windowData("w2")},
			`{"type":"custom","customType":"resetpolicy/reset-marker","data":{"windowId":"w2"}}`},
		{"custom without data", Draft{Type: TypeCustom, CustomType: "x"}, `{"type":"custom","customType":"x"}`},
		{"custom_message", Draft{Type: TypeCustomMessage, CustomType: BootType, Content: Text("b"), Details: windowData("w2")},
			`{"type":"custom_message","customType":"resetpolicy/boot","content":"b","display":false,"details":{"windowId":"w2"}}`},
		{"self-retaining compaction", Draft{Type: TypeCompaction},
			`{"type":"compaction","summary":"","firstKeptEntryId":null}`},
		{"compaction keeping an entry", Draft{Type: TypeCompaction, Summary: "s", FirstKeptEntryID: "abcd1234"},
			`{"type":"compaction","summary":"s","firstKeptEntryId":"abcd1234"}`},
		{"context_edit omit", Draft{Type: TypeContextEdit, TargetID: "t"}, `{"type":"context_edit","targetId":"t","replacement":null}`},
		{"context_edit replace", Draft{Type: TypeContextEdit, TargetID: "t", Replacement: ptr(BlocksOf(TextBlock("r")))},
			`{"type":"context_edit","targetId":"t","replacement":{"content":[{"type":"text","text":"r"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.draft)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
			var back Draft
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != tt.want {
				t.Errorf("read back as %s", b2)
			}
		})
	}
	for _, bad := range []Draft{{Type: "message"}, {Type: TypeCustom}, {Type: TypeContextEdit}} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("invalid draft %+v was written", bad)
		}
		s := New(testOptions())
		if _, err := s.AppendDrafts([]Draft{{Type: TypeCustom, CustomType: "ok"}, bad}); err == nil || len(s.Entries()) != 0 {
			t.Errorf("invalid draft %+v: err %v, %d entries appended", bad, err, len(s.Entries()))
		}
	}
}
