package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Seed 000, "A new boundary is ordered as": 1. a native compaction entry
// with summary "" and firstKeptEntryId set to its own ID; 2. a reset
// marker custom entry with { windowId }; 3. a hidden boot custom message
// with matching details.windowId; 4. a hidden continuation message.
func TestBoundary_NewBoundaryIsOrderedAsCompactionMarkerBootContinuation(t *testing.T) {
	drafts, err := Boundary("w2", testMsgs)
	if err != nil {
		t.Fatal(err)
	}
	var db bytes.Buffer
	for _, d := range drafts {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		db.Write(b)
		db.WriteByte('\n')
	}
	golden(t, "boundary_drafts.jsonl", db.Bytes())

	f := newFixture(t)
	f.system()
	f.user("work")
	f.assistant("working", 5000)
	es := f.reset("w2")
	golden(t, "boundary.jsonl", f.jsonl())

	if len(es) != 4 {
		t.Fatalf("%d entries appended", len(es))
	}
	c, m, b, k := es[0], es[1], es[2], es[3]
	if c.Type() != TypeCompaction || c.Summary() != "" || !c.Has("summary") || c.FirstKeptEntryID() != c.ID() {
		t.Errorf("1: %s", c.Bytes())
	}
	if c.Field("systemMessage") == nil {
		t.Errorf("1: the checkpoint does not carry the system/tool state")
	}
	if m.Type() != TypeCustom || m.CustomType() != MarkerType || m.WindowID() != "w2" || m.ParentID() != c.ID() {
		t.Errorf("2: %s", m.Bytes())
	}
	if b.Type() != TypeCustomMessage || b.CustomType() != BootType || b.Display() || b.WindowID() != "w2" || b.ParentID() != m.ID() {
		t.Errorf("3: %s", b.Bytes())
	}
	if k.Type() != TypeCustomMessage || k.CustomType() != ContinuationType || k.Display() || k.ParentID() != b.ID() {
		t.Errorf("4: %s", k.Bytes())
	}
	if !Committed(f.s.Path(), "w2") {
		t.Errorf("a fresh boundary is not committed: %v", CheckCommitted(f.s.Path(), "w2"))
	}
	if _, err := Boundary("", testMsgs); err == nil {
		t.Error("a boundary without a window id was built")
	}
}

// Seed 000: "A marker is trusted as checkpoint-backed only when it
// directly follows an empty native compaction whose firstKeptEntryId is
// the compaction's own ID; a generic preceding compaction is not enough."
func TestCheckpointBacked_OnlyDirectlyAfterEmptySelfKeptCompaction(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fixture)
		want  bool
	}{
		{"empty self-kept compaction then marker", func(f *fixture) { f.retainNone(); f.marker("w2") }, true},
		{"pi-context marker name", func(f *fixture) {
			f.retainNone()
			f.s.AppendCustom(LegacyMarkerType, windowData("w2"))
		}, true},
		{"generic compaction is not enough", func(f *fixture) { f.generic("summary", "00000002"); f.marker("w2") }, false},
		{"empty summary keeping earlier entries", func(f *fixture) { f.generic("", "00000002"); f.marker("w2") }, false},
		{"self-retaining summarising checkpoint is not a reset", func(f *fixture) {
			f.s.AppendCompaction(Compaction{Summary: "summary"})
			f.marker("w2")
		}, false},
		{"not directly: a label in between", func(f *fixture) {
			c := f.retainNone()
			if _, err := f.s.AppendLabel(c.ID(), "x"); err != nil {
				f.t.Fatal(err)
			}
			f.marker("w2")
		}, false},
		{"marker only (legacy)", func(f *fixture) { f.marker("w2") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("work")
			f.assistant("done", 100)
			tt.build(f)
			p := f.s.Path()
			if got := CheckpointBacked(p, len(p)-1); got != tt.want {
				t.Errorf("CheckpointBacked = %v, want %v", got, tt.want)
			}
		})
	}
}

// Seed 000: "resetBoundaryCommitted validates a checkpoint-backed marker
// followed by its matching hidden boot and hidden continuation; later
// conversation does not undo that commit."
func TestCommitted_CheckpointMarkerBootContinuation_LaterConversationDoesNotUndo(t *testing.T) {
	tests := []struct {
		name   string
		build  func(f *fixture)
		window string
		want   bool
		reason string
	}{
		{"complete boundary", func(f *fixture) { f.reset("w2") }, "w2", true, ""},
		{"later conversation does not undo it", func(f *fixture) {
			f.reset("w2")
			f.user("next task")
			f.toolTurn("c9")
			f.assistant("ok", 300)
		}, "w2", true, ""},
		{"a later reset does not undo it", func(f *fixture) { f.reset("w2"); f.user("x"); f.reset("w3") }, "w2", true, ""},
		{"neutral metadata between artifacts", func(f *fixture) {
			f.retainNone()
			m := f.marker("w2")
			f.s.AppendModelChange("openai", "gpt-4o")
			f.boot("w2")
			if _, err := f.s.AppendLabel(m.ID(), "reset"); err != nil {
				f.t.Fatal(err)
			}
			f.cont("w2")
		}, "w2", true, ""},
		{"pi-context artifact names", func(f *fixture) {
			f.retainNone()
			f.s.AppendCustom(LegacyMarkerType, windowData("w2"))
			f.s.AppendCustomMessage(LegacyBootType, Text("boot"), false, windowData("w2"))
			f.s.AppendCustomMessage(LegacyContinuationType, Text("go"), false, nil)
		}, "w2", true, ""},
		{"asked about another window", func(f *fixture) { f.reset("w2") }, "w3", false, "no reset marker for window w3"},
		{"marker-only boundary is not checkpoint-backed", func(f *fixture) { f.marker("w2"); f.boot("w2"); f.cont("w2") }, "w2", false, "retain-none checkpoint"},
		{"generic compaction before the marker", func(f *fixture) {
			f.generic("summary", "00000002")
			f.marker("w2")
			f.boot("w2")
			f.cont("w2")
		}, "w2", false, "retain-none checkpoint"},
		{"boot missing", func(f *fixture) { f.retainNone(); f.marker("w2"); f.cont("w2") }, "w2", false, "hidden boot"},
		{"continuation missing", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w2") }, "w2", false, "hidden continuation"},
		{"conversation before the continuation", func(f *fixture) {
			f.retainNone()
			f.marker("w2")
			f.boot("w2")
			f.user("hi")
			f.cont("w2")
		}, "w2", false, "hidden continuation"},
		{"boot for another window", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w9"); f.cont("w2") }, "w2", false, "for window w9"},
		{"visible boot", func(f *fixture) {
			f.retainNone()
			f.marker("w2")
			f.s.AppendCustomMessage(BootType, Text("boot"), true, windowData("w2"))
			f.cont("w2")
		}, "w2", false, "hidden boot"},
		{"continuation before boot", func(f *fixture) { f.retainNone(); f.marker("w2"); f.cont("w2"); f.boot("w2") }, "w2", false, "hidden boot"},
		{"foreign message between marker and boot", func(f *fixture) {
			f.retainNone()
			f.marker("w2")
			f.s.AppendCustomMessage("other-ext", Text("hello"), false, nil)
			f.boot("w2")
			f.cont("w2")
		}, "w2", false, "hidden boot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("work")
			f.assistant("done", 100)
			tt.build(f)
			err := CheckCommitted(f.s.Path(), tt.window)
			if got := Committed(f.s.Path(), tt.window); got != tt.want || (err == nil) != tt.want {
				t.Fatalf("Committed = %v (%v), want %v", got, err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("reason %q does not mention %q", err, tt.reason)
			}
		})
	}
}

// Seed 000: "context_with_system selects the active boot by durable
// details.windowId."
func TestActiveBoot_SelectedByDetailsWindowID(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("one")
	w2 := f.reset("w2")
	f.user("two")
	w3 := f.reset("w3")
	p := f.s.Path()
	for _, tt := range []struct {
		window string
		want   *Entry
	}{{"w2", w2[2]}, {"w3", w3[2]}, {"w4", nil}} {
		got, ok := ActiveBoot(p, tt.window)
		if ok != (tt.want != nil) || (ok && got.ID() != tt.want.ID()) {
			t.Errorf("ActiveBoot(%s) = %v %v, want %v", tt.window, got, ok, tt.want)
		}
	}
	if got := ActiveWindow(p); got != "w3" {
		t.Errorf("ActiveWindow = %q, want w3", got)
	}
	if got := ActiveWindow(p[:2]); got != "" {
		t.Errorf("ActiveWindow before any reset = %q", got)
	}
	// A compaction-time reset (seed 001) has no marker; its details name
	// the window.
	r, err := CompactionTimeReset("w4", 100)
	if err != nil {
		t.Fatal(err)
	}
	f.user("three")
	r.Apply(f.s)
	if got := ActiveWindow(f.s.Path()); got != "w4" {
		t.Errorf("ActiveWindow after a compaction-time reset = %q, want w4", got)
	}
}
