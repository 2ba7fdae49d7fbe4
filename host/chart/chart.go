package chart

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot draws the sessions to path (.svg or .png): per session, context
// tokens per turn, one colour per setting and one line style per kind of
// figure (solid measured, dotted estimated, dashed projected), the
// thresholds as thin lines named at their right end, the decisions
// marked; each panel's legend stands beside it, outside the data.
func Plot(path string, sessions []replay.PlotSession) error {
	if len(sessions) == 0 {
		return fmt.Errorf("no session to plot")
	}
	cols := 1
	if len(sessions) > 1 {
		cols = 2
	}
	rows := (len(sessions) + cols - 1) / cols
	panels := make([]panelPlot, len(sessions))
	for i, s := range sessions {
		p, err := panel(s)
		if err != nil {
			return err
		}
		panels[i] = p
	}
	w := vg.Length(cols) * 8.5 * vg.Inch
	h := vg.Length(rows) * 4.5 * vg.Inch
	f, err := fileio.CreateOutput(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		c := vgsvg.New(w, h)
		drawPanels(panels, rows, cols, draw.New(c))
		if _, err := c.WriteTo(f); err != nil {
			return err
		}
	case ".png":
		c := vgimg.New(w, h)
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		drawPanels(panels, rows, cols, dc)
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(f); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: the plot must be .svg or .png", path)
	}
	return f.Close()
}

// panelPlot is a panel's plot and the legend drawn beside it.
type panelPlot struct {
	p       *plot.Plot
	legend  plot.Legend
	entries []string // the legend's entries, in order
	labels  []string // the threshold labels, bottom to top
}

// legendWidth is the strip of each panel the legend takes.
const legendWidth = 2.2 * vg.Inch

func drawPanels(panels []panelPlot, rows, cols int, dc draw.Canvas) {
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for i, pp := range panels {
		tile := t.At(dc, i%cols, i/cols)
		plotArea := draw.Crop(tile, 0, -legendWidth, 0, 0)
		pp.p.Draw(plotArea)
		legendArea := draw.Crop(tile, tile.Max.X-tile.Min.X-legendWidth+vg.Millimeter*3, 0, 0, -vg.Millimeter*8)
		pp.legend.Draw(legendArea)
	}
}

type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// kindOrder sorts the kinds as a reader meets them.
func kindOrder(k string) string {
	return map[string]string{"measured": "0", "estimated": "1", "projected": "2"}[k]
}

// maxTitle bounds a title line; longer names are cut in the middle.
const maxTitle = 48

// shorten cuts s to n characters, keeping its start and its end.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// wrap breaks s into lines of at most n characters at spaces (a word
// longer than a line is cut), at most two lines.
func wrap(s string, n int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		w = shorten(w, n)
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= n:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	if len(lines) > 2 {
		lines = append(lines[:1], shorten(strings.Join(lines[1:], " "), n))
	}
	return strings.Join(lines, "\n")
}

// title is a panel's title: the file's base name, shortened, and the
// session's display name wrapped below it.
func title(r *replay.Report) string {
	t := shorten(filepath.Base(r.File), maxTitle)
	if r.Name != "" {
		t += "\n" + wrap(r.Name, maxTitle)
	}
	return t
}

// kindDashes are the line styles of the kinds of figure.
var kindDashes = map[replay.Kind][]vg.Length{
	replay.Measured:  nil,
	replay.Estimated: {vg.Points(1.5), vg.Points(2)},
	replay.Projected: {vg.Points(6), vg.Points(3)},
}

func panel(s replay.PlotSession) (panelPlot, error) {
	p := plot.New()
	first := s.Reports[0]
	p.Title.Text = title(first)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "turn"
	p.Y.Label.Text = "context tokens"
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(8)
	leg.ThumbnailWidth = vg.Points(20)
	maxTurn := 1.0
	for _, r := range s.Reports {
		if n := len(r.Points); n > 0 && float64(r.Points[n-1].Turn) > maxTurn {
			maxTurn = float64(r.Points[n-1].Turn)
		}
	}
	p.Y.Min = 0
	p.Y.Max = float64(first.ContextWindow) * 1.08
	p.X.Min = 0
	p.X.Max = maxTurn + 1
	multi := len(s.Reports) > 1
	seenKind := map[replay.Kind]bool{}
	seenMark := map[string]bool{}
	seenThreshold := map[string]bool{}
	// Threshold names by level: lines at one level get one label.
	levels := map[float64][]string{}
	var order []float64
	// The legend: settings (colours), then kinds (line styles), then
	// marks (shapes), then the window.
	var kindEntries, markEntries []legendItem
	var entries []string
	for i, r := range s.Reports {
		col := plotutil.Color(i)
		if multi {
			sw, err := plotter.NewLine(plotter.XYs{{}, {}})
			if err != nil {
				return panelPlot{}, err
			}
			sw.Color, sw.Width = col, vg.Points(3)
			leg.Add(shorten(r.Label, 28), sw)
			entries = append(entries, shorten(r.Label, 28))
		}
		for _, seg := range segments(r.Points) {
			l, err := plotter.NewLine(seg.xys)
			if err != nil {
				return panelPlot{}, err
			}
			l.Color, l.Width, l.Dashes = col, vg.Points(1.5), kindDashes[seg.kind]
			p.Add(l)
			if !seenKind[seg.kind] {
				seenKind[seg.kind] = true
				th := *l
				th.Color = color.Black
				kindEntries = append(kindEntries, legendItem{string(seg.kind), &th})
			}
		}
		if i < len(s.Thresholds) {
			for _, t := range s.Thresholds[i] {
				key := fmt.Sprintf("%s=%.0f", t.Name, t.Tokens)
				if seenThreshold[key] {
					continue
				}
				seenThreshold[key] = true
				l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: t.Tokens}, {X: maxTurn + 1, Y: t.Tokens}})
				if err != nil {
					return panelPlot{}, err
				}
				l.Color = col
				if sharedThreshold(s.Thresholds, t) {
					l.Color = color.Gray{Y: 110}
				}
				l.Width = vg.Points(0.6)
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
				p.Add(l)
				if _, ok := levels[t.Tokens]; !ok {
					order = append(order, t.Tokens)
				}
				if !slices.Contains(levels[t.Tokens], t.Name) {
					levels[t.Tokens] = append(levels[t.Tokens], t.Name)
				}
			}
		}
		for _, kind := range markKinds {
			xys := marks(r, kind.match)
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return panelPlot{}, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: kind.shape}
			p.Add(sc)
			if !seenMark[kind.name] {
				seenMark[kind.name] = true
				legend := *sc
				legend.GlyphStyle.Color = color.Black
				markEntries = append(markEntries, legendItem{kind.name, &legend})
			}
		}
	}
	wl, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(first.ContextWindow)}, {X: maxTurn + 1, Y: float64(first.ContextWindow)}})
	if err != nil {
		return panelPlot{}, err
	}
	wl.Color = color.Gray{Y: 60}
	p.Add(wl)
	slices.SortFunc(kindEntries, func(a, b legendItem) int { return strings.Compare(kindOrder(a.name), kindOrder(b.name)) })
	for _, e := range append(kindEntries, markEntries...) {
		leg.Add(e.name, e.thumb)
		entries = append(entries, e.name)
	}
	leg.Add(fmt.Sprintf("window %d", first.ContextWindow), wl)
	entries = append(entries, fmt.Sprintf("window %d", first.ContextWindow))
	// Labels closer than 4% of the axis share one line, so that they do
	// not print over each other.
	slices.Sort(order)
	var labels plotter.XYs
	var names []string
	for _, y := range order {
		name := fmt.Sprintf("%s %.0f", strings.Join(levels[y], ", "), y)
		if n := len(labels); n > 0 && y-labels[n-1].Y < 0.04*p.Y.Max {
			names[n-1] += "; " + name
			continue
		}
		labels = append(labels, plotter.XY{X: maxTurn + 1, Y: y})
		names = append(names, name)
	}
	if len(labels) > 0 {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: labels, Labels: names})
		if err != nil {
			return panelPlot{}, err
		}
		for k := range lb.TextStyle {
			lb.TextStyle[k].Font.Size = vg.Points(7)
			lb.TextStyle[k].XAlign = draw.XRight
			lb.TextStyle[k].YAlign = draw.YBottom
		}
		p.Add(lb)
	}
	return panelPlot{p: p, legend: leg, entries: entries, labels: names}, nil
}

func sharedThreshold(all [][]replay.Threshold, t replay.Threshold) bool {
	for _, ts := range all {
		if !slices.Contains(ts, t) {
			return false
		}
	}
	return true
}

// segment is a run of points of one kind, joined to the point before
// so that the line does not break where the kind changes.
type segment struct {
	kind replay.Kind
	xys  plotter.XYs
}

func segments(pts []replay.Point) []segment {
	var out []segment
	for i, pt := range pts {
		xy := plotter.XY{X: float64(pt.Turn), Y: float64(pt.Tokens)}
		if n := len(out); n > 0 && out[n-1].kind == pt.Kind {
			out[n-1].xys = append(out[n-1].xys, xy)
			continue
		}
		seg := segment{kind: pt.Kind}
		if i > 0 {
			prev := pts[i-1]
			seg.xys = append(seg.xys, plotter.XY{X: float64(prev.Turn), Y: float64(prev.Tokens)})
		}
		seg.xys = append(seg.xys, xy)
		out = append(out, seg)
	}
	// A lone point draws no line: repeat it.
	for i := range out {
		if len(out[i].xys) == 1 {
			out[i].xys = append(out[i].xys, out[i].xys[0])
		}
	}
	return out
}

var markKinds = []struct {
	name  string
	shape draw.GlyphDrawer
	match func(d replay.Decision) bool
}{
	{"reminder", draw.RingGlyph{}, func(d replay.Decision) bool { return injects(d, "reminder") || injects(d, "notice") }},
	{"warning", draw.TriangleGlyph{}, func(d replay.Decision) bool { return injects(d, "warning") }},
	{"reset", draw.CrossGlyph{}, func(d replay.Decision) bool { return has(d, "commit_reset", "provide_reset") }},
	{"checkpoint/compaction", draw.SquareGlyph{}, func(d replay.Decision) bool { return has(d, "checkpoint", "compact") }},
}

func injects(d replay.Decision, fragment string) bool {
	for _, e := range d.Effects {
		if e["effect"] == "inject" {
			if m, _ := e["message"].(string); strings.Contains(m, fragment) {
				return true
			}
		}
	}
	return false
}

func has(d replay.Decision, names ...string) bool {
	for _, e := range d.Effects {
		if n, _ := e["effect"].(string); slices.Contains(names, n) {
			return true
		}
	}
	return false
}

func marks(r *replay.Report, match func(replay.Decision) bool) plotter.XYs {
	var out plotter.XYs
	for _, d := range r.Decisions {
		if match(d) {
			out = append(out, plotter.XY{X: float64(max(d.Turn, 0)), Y: float64(d.Tokens)})
		}
	}
	return out
}
