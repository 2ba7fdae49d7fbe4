package chart

import (
	"github.com/resetpolicy/resetpolicy/host/replay"
	"strings"
	"testing"
)

// Long file names are cut in the middle and display names wrapped, so
// neighbouring panel titles do not overlap or run off.
func TestTitle(t *testing.T) {
	r := &replay.Report{File: "/sessions/--home-user-projects-a-very-long-project-name--/2026-11-30T21-00-00-000Z_0198c3a2-aaaa-bbbb-cccc-ddddeeeeffff.jsonl",
		Name: "Refactor the session loader so that it validates every field of the configuration before it starts the workers"}
	got := title(r)
	lines := strings.Split(got, "\n")
	if len(lines) != 3 {
		t.Fatalf("title %q: want the name and two lines of display name", got)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > maxTitle {
			t.Errorf("title line %q is %d characters, over %d", l, n, maxTitle)
		}
	}
	if !strings.HasPrefix(lines[0], "2026-11-30T21") || !strings.HasSuffix(lines[0], "ffff.jsonl") || !strings.Contains(lines[0], "…") {
		t.Errorf("the file name keeps its start and end: %q", lines[0])
	}
}

// A compare of four settings has one legend entry per setting (a
// colour), one per kind of figure (a line style), one per kind of mark
// and the window; thresholds are labelled on the plot, not in the legend
// (a four-policy compare had 17 entries).
func TestPlotLegend(t *testing.T) {
	var reps []*replay.Report
	var ths [][]replay.Threshold
	for i, label := range []string{"a", "b", "c", "d"} {
		r := &replay.Report{File: "s.jsonl", Label: label, ContextWindow: 100000,
			Points: []replay.Point{{Turn: 1, Tokens: 1000, Kind: replay.Measured}, {Turn: 2, Tokens: 2000, Kind: replay.Estimated}, {Turn: 3, Tokens: 500, Kind: replay.Projected}},
			Decisions: []replay.Decision{{Turn: 2, Tokens: 2000, Effects: []map[string]any{{"effect": "inject", "message": "checkpoint_warning"}}},
				{Turn: 3, Tokens: 500, Effects: []map[string]any{{"effect": "commit_reset"}}}}}
		reps = append(reps, r)
		ths = append(ths, []replay.Threshold{{Name: "warning", Tokens: float64(70000 + 1000*i)}, {Name: "hard reserve", Tokens: 83616}, {Name: "Pi compaction", Tokens: 83616}})
	}
	pp, err := panel(replay.PlotSession{Reports: reps, Thresholds: ths})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "c", "d", "measured", "estimated", "projected", "warning", "reset", "window 100000"}
	if strings.Join(pp.entries, "|") != strings.Join(want, "|") {
		t.Errorf("legend %q, want %q", pp.entries, want)
	}
	// The four warnings sit within 4% of each other: one label. The hard
	// reserve and Pi's compaction share a level: one label.
	if len(pp.labels) != 2 || !strings.Contains(pp.labels[1], "hard reserve, Pi compaction 83616") {
		t.Errorf("threshold labels %q", pp.labels)
	}
}

// A series is drawn in runs of one kind, each joined to the point before.
func TestSegments(t *testing.T) {
	segs := segments([]replay.Point{{Turn: 1, Kind: replay.Measured}, {Turn: 2, Kind: replay.Estimated}, {Turn: 3, Kind: replay.Estimated}, {Turn: 4, Kind: replay.Projected}})
	if len(segs) != 3 || segs[0].kind != replay.Measured || segs[1].kind != replay.Estimated || len(segs[1].xys) != 3 || segs[2].xys[0].X != 3 {
		t.Fatalf("segments %+v", segs)
	}
}
