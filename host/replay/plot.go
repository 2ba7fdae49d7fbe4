package replay

import (
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// MaxPlotSessions bounds the panels of one plot.
const MaxPlotSessions = 12

// Threshold is a context level a policy (or Pi) acts at.
type Threshold struct {
	Name   string  `json:"name"`
	Tokens float64 `json:"tokens"`
}

// PlotSession is one panel: a session's reports, one per setting, and
// each setting's thresholds.
type PlotSession struct {
	Reports    []*Report
	Thresholds [][]Threshold
}

// ThresholdsOf computes each setting's thresholds for a session's window
// from the policy's derived values, by convention: a number named
// *_at is runway above nothing (the remaining tokens at which something
// is due: the line is at context window − value), a number named active_*
// is a context level. Pi's own compaction threshold (window − reserve)
// is always drawn.
func ThresholdsOf(configs []Config, reps []*Report) [][]Threshold {
	out := make([][]Threshold, len(configs))
	for i, cfg := range configs {
		out[i] = thresholdsFor(cfg, reps[i].ContextWindow)
	}
	return out
}

// thresholdsFor is ThresholdsOf for one setting and window.
func thresholdsFor(cfg Config, window int64) []Threshold {
	b, err := engine.NewEventBuilder("request")
	if err != nil {
		return nil
	}
	b.SetInt(b.MustIndex("context_window", contract.Int), window)
	b.SetInt(b.MustIndex("reserve", contract.Int), cfg.Settings.Reserve)
	var ts []Threshold
	ev, err := b.Event()
	if err != nil {
		return nil
	}
	for _, d := range cfg.Engine.NewSession().Derived(ev) {
		v, ok := d.Value.(float64)
		if !ok {
			continue
		}
		switch {
		case strings.HasSuffix(d.Name, "_at"):
			ts = append(ts, Threshold{strings.TrimSuffix(d.Name, "_at"), float64(window) - v})
		case strings.HasPrefix(d.Name, "active_"):
			ts = append(ts, Threshold{strings.TrimPrefix(d.Name, "active_"), v})
		}
	}
	if cfg.Settings.AutoCompaction {
		ts = append(ts, Threshold{"Pi compaction", float64(window - cfg.Settings.Reserve)})
	}
	return ts
}
