package session

import (
	"encoding/json"
	"testing"
)

// Seed 000: "/tree summary generation is suppressed with an empty summary
// when either branch crosses a reset, because the raw summary generator
// bypasses the provider projection." (The seed's suite has no test for
// it.)
func TestSuppressTreeSummary_WhenEitherBranchCrossesAReset(t *testing.T) {
	plain := func(f *fixture) { f.user("plain"); f.assistant("ok", 10) }
	reset := func(f *fixture) { f.user("before"); f.reset("w2"); f.user("after") }
	tests := []struct {
		name     string
		shared   func(f *fixture) // after the common prefix, before branching
		old, new func(f *fixture)
		want     bool
	}{
		{"neither branch crosses a reset", nil, plain, plain, false},
		{"the abandoned branch crosses a reset", nil, reset, plain, true},
		{"the target branch crosses a reset", nil, plain, reset, true},
		{"both cross", nil, reset, reset, true},
		{"the reset is before the common ancestor", func(f *fixture) { f.reset("w2") }, plain, plain, false},
		{"legacy marker-only reset", nil, func(f *fixture) { f.s.AppendCustom(LegacyMarkerType, windowData("w2")) }, plain, true},
		{"compaction-time reset (no marker)", nil, func(f *fixture) {
			r, _ := CompactionTimeReset("w2", 10)
			r.Apply(f.s)
		}, plain, true},
		{"a summarising checkpoint is not a reset", nil, func(f *fixture) {
			d, _ := Checkpoint("summary", nil, nil)
			if _, err := f.s.AppendDrafts([]Draft{d}); err != nil {
				f.t.Fatal(err)
			}
		}, plain, false},
		{"target is an ancestor of the old leaf across a reset", nil, reset, func(f *fixture) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("task")
			f.assistant("done", 10)
			if tt.shared != nil {
				tt.shared(f)
			}
			fork := f.s.Leaf()
			tt.old(f)
			oldPath := f.s.Path()
			if err := f.s.Branch(fork); err != nil {
				t.Fatal(err)
			}
			tt.new(f)
			newPath := f.s.Path()
			if got := SuppressTreeSummary(oldPath, newPath); got != tt.want {
				t.Errorf("SuppressTreeSummary = %v, want %v", got, tt.want)
			}
			if got := SuppressTreeSummary(newPath, oldPath); got != tt.want {
				t.Errorf("not symmetric: reversed = %v", got)
			}
		})
	}
	var r struct {
		Summary *struct {
			Summary *string `json:"summary"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(SuppressedTreeResult, &r); err != nil || r.Summary == nil || r.Summary.Summary == nil || *r.Summary.Summary != "" {
		t.Errorf("SuppressedTreeResult %s is not an empty extension summary", SuppressedTreeResult)
	}
}
