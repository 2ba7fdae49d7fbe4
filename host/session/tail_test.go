package session

import (
	"reflect"
	"strings"
	"testing"
)

// Seed 000: "inspectResetTail instead asks whether the entire suffix
// remains safe to repair, refusing later conversation, foreign messages,
// later markers or misordered/duplicate artifacts."
func TestInspectTail_RefusesLaterConversationForeignMessagesLaterMarkersMisorderedDuplicates(t *testing.T) {
	tests := []struct {
		name       string
		build      func(f *fixture)
		window     string
		status     TailStatus
		missing    []Artifact
		checkpoint bool
		reason     string
	}{
		{"no marker", func(f *fixture) {}, "", TailNoMarker, nil, false, ""},
		{"no marker for the window asked", func(f *fixture) { f.reset("w2") }, "w3", TailNoMarker, nil, false, ""},
		{"complete boundary", func(f *fixture) { f.reset("w2") }, "", TailComplete, nil, true, ""},
		{"marker alone after its checkpoint", func(f *fixture) { f.retainNone(); f.marker("w2") }, "", TailRepairable,
			[]Artifact{ArtifactBoot, ArtifactContinuation}, true, ""},
		{"continuation missing", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w2") }, "w2", TailRepairable,
			[]Artifact{ArtifactContinuation}, true, ""},
		{"legacy marker-only tail", func(f *fixture) { f.marker("w2") }, "", TailRepairable,
			[]Artifact{ArtifactBoot, ArtifactContinuation}, false, ""},
		{"marker after a generic compaction", func(f *fixture) { f.generic("summary", "00000002"); f.marker("w2") }, "", TailRepairable,
			[]Artifact{ArtifactBoot, ArtifactContinuation}, false, ""},
		{"neutral metadata is ignored", func(f *fixture) {
			f.retainNone()
			m := f.marker("w2")
			f.s.AppendModelChange("openai", "gpt-4o")
			f.s.AppendThinkingLevelChange("low")
			f.s.AppendCustom("other-ext/state", Raw(map[string]int{"n": 1}))
			if _, err := f.s.AppendLabel(m.ID(), "reset"); err != nil {
				f.t.Fatal(err)
			}
			f.msg(SystemMessage{Sections: map[string]*string{"cwd": ptr("/other")}, Timestamp: 1})
		}, "", TailRepairable, []Artifact{ArtifactBoot, ArtifactContinuation}, true, ""},

		{"later conversation", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w2"); f.user("hello") }, "", TailRefused,
			nil, true, "later conversation"},
		{"later work after a complete boundary", func(f *fixture) { f.reset("w2"); f.assistant("more", 10) }, "", TailRefused,
			nil, true, "later conversation"},
		{"foreign message", func(f *fixture) {
			f.retainNone()
			f.marker("w2")
			f.s.AppendCustomMessage("other-ext", Text("note"), false, nil)
		}, "", TailRefused, nil, true, "foreign message"},
		{"later marker", func(f *fixture) { f.retainNone(); f.marker("w2"); f.marker("w3") }, "w2", TailRefused,
			nil, true, "later marker"},
		{"continuation before the boot", func(f *fixture) { f.retainNone(); f.marker("w2"); f.cont("w2") }, "", TailRefused,
			nil, true, "misordered"},
		{"second boot after a complete boundary", func(f *fixture) { f.reset("w2"); f.boot("w2") }, "", TailRefused,
			nil, true, "duplicate boot"},
		{"boot before its marker", func(f *fixture) { f.boot("w2"); f.marker("w2") }, "", TailRefused,
			nil, false, "misordered"},
		{"duplicate boot", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w2"); f.boot("w2") }, "", TailRefused,
			nil, true, "duplicate boot"},
		{"duplicate continuation", func(f *fixture) { f.reset("w2"); f.cont("w2") }, "", TailRefused,
			nil, true, "duplicate continuation"},
		{"duplicate marker", func(f *fixture) { f.marker("w2"); f.boot("w2"); f.cont("w2"); f.marker("w2") }, "", TailRefused,
			nil, false, "duplicate marker"},
		{"boot of another window", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w9") }, "", TailRefused,
			nil, true, "foreign boot"},
		{"later compaction", func(f *fixture) { f.retainNone(); f.marker("w2"); f.generic("s", "") }, "", TailRefused,
			nil, true, "foreign compaction"},
		{"marker without window id", func(f *fixture) { f.s.AppendCustom(MarkerType, Raw(map[string]int{})) }, "", TailRefused,
			nil, false, "no window id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("work")
			f.assistant("done", 100)
			tt.build(f)
			r := InspectTail(f.s.Path(), tt.window)
			if r.Status != tt.status {
				t.Fatalf("status = %v (%s), want %v", r.Status, r.Reason, tt.status)
			}
			if !reflect.DeepEqual(r.Missing, tt.missing) {
				t.Errorf("missing = %v, want %v", r.Missing, tt.missing)
			}
			if r.Status != TailNoMarker && r.Checkpoint != tt.checkpoint {
				t.Errorf("checkpoint = %v, want %v", r.Checkpoint, tt.checkpoint)
			}
			if !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", r.Reason, tt.reason)
			}
		})
	}
}

// Seed 000: "Focused regression tests distinguish committed-boundary
// confirmation from safe suffix repair even after later work."
func TestCommittedVersusInspectTail_DistinguishedAfterLaterWork(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("work")
	f.reset("w2")
	if r := InspectTail(f.s.Path(), "w2"); r.Status != TailComplete || !Committed(f.s.Path(), "w2") {
		t.Fatalf("before later work: tail %v, committed %v", r.Status, Committed(f.s.Path(), "w2"))
	}
	f.user("next")
	f.assistant("ok", 50)
	if !Committed(f.s.Path(), "w2") {
		t.Error("later work undid the commit")
	}
	if r := InspectTail(f.s.Path(), "w2"); r.Status != TailRefused {
		t.Errorf("later work left the tail %v, want refused", r.Status)
	}
}

// Seed 000: "Startup/tree repair is narrow: it may complete a repairable
// marker tail … repair never moves a boundary or promotes an arbitrary
// compaction to a retain-none checkpoint."
func TestRepair_CompletesMarkerTailWithoutMovingBoundaryOrPromotingCompaction(t *testing.T) {
	tests := []struct {
		name          string
		build         func(f *fixture)
		drafts        []string // custom types of the drafts
		err           string
		committed     bool // after the repair
		mode          Mode // projection after the repair
		goldenRepaird string
	}{
		{"checkpoint-backed marker missing boot and continuation", func(f *fixture) { f.retainNone(); f.marker("w2") },
			[]string{BootType, ContinuationType}, "", true, ModeCheckpoint, "repair_checkpoint.jsonl"},
		{"continuation missing", func(f *fixture) { f.retainNone(); f.marker("w2"); f.boot("w2") },
			[]string{ContinuationType}, "", true, ModeCheckpoint, ""},
		{"generic compaction is not promoted", func(f *fixture) { f.generic("old summary", "00000002"); f.marker("w2") },
			[]string{BootType, ContinuationType}, "", false, ModeLegacy, "repair_generic.jsonl"},
		{"legacy marker-only tail", func(f *fixture) { f.marker("w2") },
			[]string{BootType, ContinuationType}, "", false, ModeLegacy, ""},
		{"complete tail needs nothing", func(f *fixture) { f.reset("w2") }, nil, "", true, ModeCheckpoint, ""},
		{"refused tail", func(f *fixture) { f.retainNone(); f.marker("w2"); f.user("hi") }, nil, "not repairable: later conversation", false, 0, ""},
		{"no marker", func(f *fixture) {}, nil, "no reset marker", false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("work")
			f.assistant("done", 100)
			tt.build(f)
			before := f.s.Path()
			r := InspectTail(before, "")
			drafts, err := Repair(r, testMsgs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || drafts != nil {
					t.Fatalf("err = %v, drafts %v; want error %q", err, drafts, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, d := range drafts {
				types = append(types, d.CustomType)
				if d.Type == TypeCompaction {
					t.Errorf("repair proposed a compaction")
				}
				if d.Display {
					t.Errorf("repair proposed a visible message")
				}
			}
			if !reflect.DeepEqual(types, tt.drafts) {
				t.Fatalf("drafts %v, want %v", types, tt.drafts)
			}
			if _, err := f.s.AppendDrafts(drafts); err != nil {
				t.Fatal(err)
			}
			after := f.s.Path()
			if !reflect.DeepEqual(ids(after[:len(before)]), ids(before)) {
				t.Error("repair changed the existing branch")
			}
			if got := InspectTail(after, "w2"); got.Status != TailComplete || got.Marker.ID() != r.Marker.ID() {
				t.Errorf("after repair the tail is %v (%s) at marker %v", got.Status, got.Reason, got.Marker)
			}
			if got := Committed(after, "w2"); got != tt.committed {
				t.Errorf("Committed after repair = %v, want %v", got, tt.committed)
			}
			if got := Project(after); got.Mode != tt.mode {
				t.Errorf("projection after repair = %v (%s), want %v", got.Mode, got.Reason, tt.mode)
			}
			if tt.goldenRepaird != "" {
				golden(t, tt.goldenRepaird, f.jsonl())
			}
		})
	}
}
