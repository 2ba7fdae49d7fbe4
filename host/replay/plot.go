package replay

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// MaxPlotSessions bounds the panels of one plot.
const MaxPlotSessions = 12

// Threshold is a context level a policy (or Pi) acts at.
type Threshold struct {
	Name   string
	Tokens float64
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
		window := reps[i].ContextWindow
		b, err := engine.NewEventBuilder("request")
		if err != nil {
			continue
		}
		b.SetInt(b.MustIndex("context_window", contract.Int), window)
		b.SetInt(b.MustIndex("reserve", contract.Int), cfg.Settings.Reserve)
		var ts []Threshold
		ev, err := b.Event()
		if err != nil {
			continue
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
		out[i] = ts
	}
	return out
}

// Plot draws the sessions to path (.svg or .png): per session, context
// tokens per turn (solid where measured, dashed where projected), the
// thresholds as horizontal lines, the decisions marked, settings in
// colours.
func Plot(path string, sessions []PlotSession) error {
	if len(sessions) == 0 {
		return fmt.Errorf("no session to plot")
	}
	cols := 1
	if len(sessions) > 1 {
		cols = 2
	}
	rows := (len(sessions) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for i, s := range sessions {
		p, err := panel(s)
		if err != nil {
			return err
		}
		plots[i/cols][i%cols] = p
	}
	w := vg.Length(cols) * 7 * vg.Inch
	h := vg.Length(rows) * 4.5 * vg.Inch
	f, err := fileio.CreateOutput(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		c := vgsvg.New(w, h)
		align(plots, draw.New(c))
		if _, err := c.WriteTo(f); err != nil {
			return err
		}
	case ".png":
		c := vgimg.New(w, h)
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		align(plots, dc)
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(f); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: the plot must be .svg or .png", path)
	}
	return f.Close()
}

func align(plots [][]*plot.Plot, dc draw.Canvas) {
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, t, dc)
	for j := range plots {
		for i, p := range plots[j] {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
}

func panel(s PlotSession) (*plot.Plot, error) {
	p := plot.New()
	first := s.Reports[0]
	p.Title.Text = filepath.Base(first.File)
	if first.Name != "" {
		p.Title.Text += " — " + first.Name
	}
	p.X.Label.Text = "turn"
	p.Y.Label.Text = "context tokens (dashed: projected)"
	p.Legend.Top = true
	p.Legend.Left = true
	maxTurn := 1.0
	for _, r := range s.Reports {
		if n := len(r.Points); n > 0 && float64(r.Points[n-1].Turn) > maxTurn {
			maxTurn = float64(r.Points[n-1].Turn)
		}
	}
	p.Y.Min = 0
	// Room above the window for the legend.
	p.Y.Max = float64(first.ContextWindow) * 1.5
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.X.Min = 0
	p.X.Max = maxTurn + 1
	multi := len(s.Reports) > 1
	seenThreshold := map[string]bool{}
	seenMark := map[string]bool{}
	for i, r := range s.Reports {
		col := plotutil.Color(i)
		suffix := ""
		if multi {
			suffix = " [" + r.Label + "]"
		}
		measured, projected := series(r.Points)
		if len(measured) > 0 {
			l, err := plotter.NewLine(measured)
			if err != nil {
				return nil, err
			}
			l.Color = col
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add("context"+suffix, l)
		}
		if len(projected) > 0 {
			l, err := plotter.NewLine(projected)
			if err != nil {
				return nil, err
			}
			l.Color = col
			l.Width = vg.Points(1.5)
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
		}
		if i < len(s.Thresholds) {
			for k, t := range s.Thresholds[i] {
				key := fmt.Sprintf("%s=%.0f", t.Name, t.Tokens)
				if seenThreshold[key] {
					continue
				}
				seenThreshold[key] = true
				// A threshold every setting shares is drawn once, unlabelled
				// by setting.
				label := suffix
				if sharedThreshold(s.Thresholds, t) {
					label = ""
				}
				l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: t.Tokens}, {X: maxTurn + 1, Y: t.Tokens}})
				if err != nil {
					return nil, err
				}
				l.Color = col
				l.Width = vg.Points(0.7)
				l.Dashes = []vg.Length{vg.Points(1 + float64(k)), vg.Points(2)}
				p.Add(l)
				p.Legend.Add(fmt.Sprintf("%s %.0f%s", t.Name, t.Tokens, label), l)
			}
		}
		for _, kind := range markKinds {
			xys := marks(r, kind.match)
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: kind.shape}
			p.Add(sc)
			if !seenMark[kind.name] {
				seenMark[kind.name] = true
				legend := *sc
				legend.GlyphStyle.Color = color.Black
				p.Legend.Add(kind.name, &legend)
			}
		}
	}
	wl, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(first.ContextWindow)}, {X: maxTurn + 1, Y: float64(first.ContextWindow)}})
	if err != nil {
		return nil, err
	}
	wl.Color = color.Gray{Y: 90}
	p.Add(wl)
	p.Legend.Add(fmt.Sprintf("context window %d", first.ContextWindow), wl)
	return p, nil
}

func sharedThreshold(all [][]Threshold, t Threshold) bool {
	for _, ts := range all {
		if !slices.Contains(ts, t) {
			return false
		}
	}
	return true
}

// series splits the points into the measured line and the projected one
// (which starts at the last measured point, so the two join).
func series(pts []Point) (measured, projected plotter.XYs) {
	for i, pt := range pts {
		xy := plotter.XY{X: float64(pt.Turn), Y: float64(pt.Tokens)}
		if !pt.Projected {
			measured = append(measured, xy)
			continue
		}
		if len(projected) == 0 && i > 0 {
			prev := pts[i-1]
			projected = append(projected, plotter.XY{X: float64(prev.Turn), Y: float64(prev.Tokens)})
		}
		projected = append(projected, xy)
	}
	return measured, projected
}

var markKinds = []struct {
	name  string
	shape draw.GlyphDrawer
	match func(d Decision) bool
}{
	{"reminder", draw.RingGlyph{}, func(d Decision) bool { return injects(d, "reminder") || injects(d, "notice") }},
	{"warning", draw.TriangleGlyph{}, func(d Decision) bool { return injects(d, "warning") }},
	{"reset", draw.CrossGlyph{}, func(d Decision) bool { return has(d, "commit_reset", "provide_reset") }},
	{"checkpoint/compaction", draw.SquareGlyph{}, func(d Decision) bool { return has(d, "checkpoint", "compact") }},
}

func injects(d Decision, fragment string) bool {
	for _, e := range d.Effects {
		if e["effect"] == "inject" {
			if m, _ := e["message"].(string); strings.Contains(m, fragment) {
				return true
			}
		}
	}
	return false
}

func has(d Decision, names ...string) bool {
	for _, e := range d.Effects {
		if n, _ := e["effect"].(string); slices.Contains(names, n) {
			return true
		}
	}
	return false
}

func marks(r *Report, match func(Decision) bool) plotter.XYs {
	var out plotter.XYs
	for _, d := range r.Decisions {
		if match(d) {
			out = append(out, plotter.XY{X: float64(max(d.Turn, 0)), Y: float64(d.Tokens)})
		}
	}
	return out
}
