package chart_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/chart"
	"github.com/resetpolicy/resetpolicy/host/replay"
)

func sessions() []replay.PlotSession {
	var out []replay.PlotSession
	for k := 0; k < 3; k++ {
		var reps []*replay.Report
		var ths [][]replay.Threshold
		for i, label := range []string{"a", "b"} {
			r := &replay.Report{File: "s.jsonl", Name: "A session", Label: label, ContextWindow: 100000,
				Points: []replay.Point{{Turn: 1, Tokens: 1000 + int64(k), Kind: replay.Measured}, {Turn: 2, Tokens: 2000, Kind: replay.Estimated}, {Turn: 3, Tokens: 500, Kind: replay.Projected}},
				Decisions: []replay.Decision{{Turn: 2, Tokens: 2000, Effects: []map[string]any{{"effect": "inject", "message": "checkpoint_warning", "tokens": int64(3)}}},
					{Turn: 3, Tokens: 500, Effects: []map[string]any{{"effect": "commit_reset"}}}}}
			reps = append(reps, r)
			ths = append(ths, []replay.Threshold{{Name: "warning", Tokens: float64(70000 + 1000*i)}, {Name: "Pi compaction", Tokens: 83616}})
		}
		out = append(out, replay.PlotSession{Reports: reps, Thresholds: ths})
	}
	return out
}

// A plot drawn from the request resetpolicy sends is the plot of the
// sessions themselves, byte for byte: the request carries all a plot
// draws.
func TestPlotOfTheRequestIsThePlot(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".svg", ".png"} {
		direct := filepath.Join(dir, "direct"+ext)
		if err := chart.Plot(direct, sessions()); err != nil {
			t.Fatal(err)
		}
		var req bytes.Buffer
		if err := replay.WritePlotRequest(&req, filepath.Join(dir, "sent"+ext), sessions()); err != nil {
			t.Fatal(err)
		}
		path, got, err := replay.ReadPlotRequest(&req)
		if err != nil {
			t.Fatal(err)
		}
		if err := chart.Plot(path, got); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(direct)
		b, _ := os.ReadFile(path)
		if len(a) < 1000 || !bytes.Equal(a, b) {
			t.Errorf("%s: the plot of the request (%d bytes) is not the plot of the sessions (%d bytes)", ext, len(b), len(a))
		}
	}
}
