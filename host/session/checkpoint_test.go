package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Seed 002, "Checkpoint lifecycle": "4. The extension summarizes the
// complete context preview. This preview includes the turn's tool
// results. 5. The extension adds a self-retaining Pi compaction entry.
// 6. … The agent resumes from the summary."
func TestCheckpoint_SelfRetainingCompactionResumesFromSummary(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("task")
	f.toolTurn("c1")
	d, err := Checkpoint("## Goal\nFix a.go", Raw(map[string]string{"kind": "checkpoint"}), &Usage{Input: 900, Output: 100, TotalTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	if want := `{"type":"compaction","summary":"## Goal\nFix a.go","firstKeptEntryId":null,"details":{"kind":"checkpoint"},"usage":{"input":900,"output":100,"cacheRead":0,"cacheWrite":0,"totalTokens":1000,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}`; string(b) != want {
		t.Errorf("draft\n got %s\nwant %s", b, want)
	}
	es, err := f.s.AppendDrafts([]Draft{d})
	if err != nil {
		t.Fatal(err)
	}
	c := es[0]
	if !IsSelfRetaining(c) || c.FirstKeptEntryID() != c.ID() {
		t.Errorf("not self-retaining: %s", c.Bytes())
	}
	if IsTrustedCheckpoint(c) {
		t.Error("a summarising checkpoint was trusted as a reset")
	}
	if string(c.Field("fromHook")) != "true" {
		t.Error("a draft compaction is not marked fromHook")
	}
	golden(t, "checkpoint.jsonl", f.jsonl())
	ctx := Canonical(f.s.Path())
	if got := ctx.Roles(); !reflect.DeepEqual(got, []string{"system", "compactionSummary"}) {
		t.Errorf("context after the checkpoint: %v", got)
	}
	if !strings.Contains(string(ctx[1].Message), `"summary":"## Goal\nFix a.go"`) {
		t.Errorf("summary: %s", ctx[1].Message)
	}
	if _, err := Checkpoint("", nil, nil); err == nil {
		t.Error("an empty summarising checkpoint was built")
	}
}

// Seed 002: "An existing compaction at the same boundary prevents a
// duplicate."
func TestCompactedAtLeaf_ExistingCompactionAtSameBoundaryPreventsDuplicate(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fixture)
		want  bool
	}{
		{"no compaction", func(f *fixture) {}, false},
		{"checkpoint at the leaf", func(f *fixture) { f.s.AppendCompaction(Compaction{Summary: "s"}) }, true},
		{"checkpoint then only metadata", func(f *fixture) {
			f.s.AppendCompaction(Compaction{Summary: "s"})
			f.s.AppendCustom("state", nil)
			f.s.AppendModelChange("openai", "gpt-4o")
		}, true},
		{"checkpoint then new work", func(f *fixture) { f.s.AppendCompaction(Compaction{Summary: "s"}); f.user("more") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("task")
			f.assistant("ok", 10)
			tt.build(f)
			if got := CompactedAtLeaf(f.s.Path()); got != tt.want {
				t.Errorf("CompactedAtLeaf = %v, want %v", got, tt.want)
			}
		})
	}
}

// Seed 001: "Manual, threshold or overflow session_before_compact … Build
// the reset boundary immediately and return it. Never cancel and never
// take a model turn; an aborted signal returns { cancel: true }."
func TestCompactionTimeReset_BeforeCompactResultIsRetainNoneBoundary(t *testing.T) {
	r, err := CompactionTimeReset("w2", 48000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	golden(t, "compaction_time_reset.json", append(b, '\n'))
	if c, _ := json.Marshal(CancelCompaction()); string(c) != `{"cancel":true}` {
		t.Errorf("cancel result %s", c)
	}
	if _, err := CompactionTimeReset("", 1); err == nil {
		t.Error("a reset without a window id was built")
	}

	f := newFixture(t)
	f.system()
	f.user("task")
	f.assistant("ok", 48000)
	e := r.Apply(f.s)
	if !IsTrustedCheckpoint(e) || e.WindowID() != "w2" || string(e.Field("tokensBefore")) != "48000" {
		t.Errorf("applied: %s", e.Bytes())
	}
	if got := Canonical(f.s.Path()).Roles(); !reflect.DeepEqual(got, []string{"system", "compactionSummary"}) {
		t.Errorf("context after the reset: %v", got)
	}
	if CancelCompaction().Apply(f.s) != nil {
		t.Error("a cancel appended an entry")
	}
}

// Seed 001: "Matching session_compact: Confirm boundary, persist window
// state." The match is by window id on the branch, not by Pi's
// compactionEntry, which for an empty summary is the first empty
// compaction in the file.
func TestFindCompactionTimeReset_MatchesTheWindowNotTheFirstEmptyCompaction(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("one")
	r2, _ := CompactionTimeReset("w2", 10)
	first := r2.Apply(f.s)
	f.user("two")
	r3, _ := CompactionTimeReset("w3", 10)
	second := r3.Apply(f.s)
	p := f.s.Path()
	for _, tt := range []struct {
		window string
		want   *Entry
	}{{"w2", first}, {"w3", second}, {"w4", nil}} {
		got, ok := FindCompactionTimeReset(p, tt.window)
		if ok != (tt.want != nil) || (ok && got.ID() != tt.want.ID()) {
			t.Errorf("window %s: got %v, want %v", tt.window, got, tt.want)
		}
	}
	// Pi's lookup (entries.find(e => e.type === "compaction" && e.summary === summary))
	var piPick *Entry
	for _, e := range f.s.Entries() {
		if e.Type() == TypeCompaction && e.Summary() == "" {
			piPick = e
			break
		}
	}
	if piPick.ID() != first.ID() {
		t.Fatal("the premise changed: Pi's lookup no longer picks the first empty compaction")
	}
}
