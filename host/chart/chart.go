package chart

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fogleman/gg"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/render"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Palette gives each compared setting one colour.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// MaxPoints bounds the points drawn per series: a longer session is
// thinned bucket by bucket, each bucket keeping its highest point so that
// no peak is lost.
const MaxPoints = 600

// kindDash is each kind of figure's stroke: measured solid, estimated
// dotted, projected dashed.
var kindDash = map[replay.Kind][]float64{replay.Measured: nil, replay.Estimated: {1.5, 3}, replay.Projected: {6, 4}}

const (
	width, height                  = 960.0, 380.0
	padL, padR, padT, padB float64 = 64, 214, 14, 40
	titleH                         = 36.0
	fontSize                       = 11.0
	pngScale                       = 2.0
	maxPixels                      = 64 << 20
)

// Panel draws one session as SVG for a page to embed. Each marked
// decision is a <g class="decision k-KIND" data-s="SETTING" data-d="INDEX">
// (INDEX into that setting's Report.Decisions) with a <title>, for the
// page's script to explain on hover.
func Panel(s replay.PlotSession) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" font-family="%s" font-size="%g">`,
		width, height, width, height, esc(render.FontFamily), fontSize)
	draw(svgCanvas{&b}, s, 0, false)
	b.WriteString(`</svg>`)
	return b.String()
}

// Draw draws sessions one panel under another, each titled with its
// session, as "svg" or "png".
func Draw(sessions []replay.PlotSession, format string) ([]byte, error) {
	if len(sessions) == 0 {
		return nil, fmt.Errorf("no session to plot")
	}
	ph := height + titleH
	h := ph * float64(len(sessions))
	switch format {
	case "svg":
		var b bytes.Buffer
		fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"+`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="%s" font-size="%g">`,
			width, h, width, h, esc(render.FontFamily), fontSize)
		b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>`)
		for i, s := range sessions {
			draw(svgCanvas{&b}, s, float64(i)*ph, true)
		}
		b.WriteString("</svg>\n")
		return b.Bytes(), nil
	case "png":
		w, hh := int(width*pngScale), int(h*pngScale)
		if w*hh > maxPixels {
			return nil, fmt.Errorf("the picture would be %d×%d pixels, more than %d; plot fewer sessions or use svg", w, hh, maxPixels)
		}
		dc := gg.NewContext(w, hh)
		dc.Scale(pngScale, pngScale)
		dc.SetRGB(1, 1, 1)
		dc.Clear()
		c := &pngCanvas{dc: dc}
		for i, s := range sessions {
			draw(c, s, float64(i)*ph, true)
		}
		if c.err != nil {
			return nil, c.err
		}
		var b bytes.Buffer
		if err := dc.EncodePNG(&b); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("cannot draw %q: svg or png", format)
}

// Plot writes Draw's drawing of sessions to path, .svg or .png.
func Plot(path string, sessions []replay.PlotSession) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "svg" && format != "png" {
		return fmt.Errorf("%s: the plot must be .svg or .png", path)
	}
	out, err := Draw(sessions, format)
	if err != nil {
		return err
	}
	f, err := fileio.CreateOutput(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// frame maps turns and tokens to a panel's plot area.
type frame struct {
	top, plotW, plotH, yMax float64
	maxTurn                 int
}

func (f frame) x(turn int) float64 { return padL + f.plotW*float64(max(turn, 0))/float64(f.maxTurn) }
func (f frame) y(tok float64) float64 {
	return f.top + padT + f.plotH*(1-tok/f.yMax)
}

// draw draws one session at top; title adds the session's name above it.
func draw(c canvas, s replay.PlotSession, top float64, title bool) {
	reports := s.Reports
	if title {
		r := reports[0]
		c.text(padL, top+16, clip(filepath.Base(r.File), 90), 13, "#111", start, false)
		if r.Name != "" {
			c.text(padL, top+31, clip(r.Name, 110), fontSize, "#555", start, false)
		}
		top += titleH
	}
	window := int64(0)
	maxTurn, maxTok := 1, int64(1)
	for _, r := range reports {
		window = max(window, r.ContextWindow)
		for _, p := range r.Points {
			maxTurn, maxTok = max(maxTurn, p.Turn), max(maxTok, p.Tokens)
		}
		for _, d := range r.Decisions {
			maxTurn, maxTok = max(maxTurn, d.Turn), max(maxTok, d.Tokens)
		}
	}
	f := frame{top: top, plotW: width - padL - padR, plotH: height - padT - padB, yMax: niceCeil(float64(max(maxTok, window)) * 1.04), maxTurn: maxTurn}
	c.rect(padL, f.y(f.yMax), f.plotW, f.plotH, "#fff", "#999")
	for _, t := range ticks(f.yMax, 5) {
		c.polyline([]pt{{padL, f.y(t)}, {padL + f.plotW, f.y(t)}}, stroke{colour: "#eeeeee", width: 1}, "")
		c.text(padL-6, f.y(t)+4, tokLabel(t), fontSize, "#333", end, false)
	}
	for _, t := range ticks(float64(maxTurn), 8) {
		c.text(f.x(int(t)), top+padT+f.plotH+16, fmt.Sprint(int(t)), fontSize, "#333", middle, false)
	}
	c.text(padL+f.plotW/2, top+height-6, "turn", fontSize, "#333", middle, false)
	c.text(16, top+padT+f.plotH/2, "context tokens", fontSize, "#333", middle, true)

	if window > 0 {
		c.polyline([]pt{{padL, f.y(float64(window))}, {padL + f.plotW, f.y(float64(window))}}, stroke{colour: "#333333", width: 1.5}, "window")
		if maxTok > window {
			c.text(padL+f.plotW-6, f.y(float64(window))-5, "above the window: projected, more than a provider accepts", 10, "#555", end, false)
		}
	}
	thresholds(c, f, s.Thresholds, window)

	n := len(reports)
	kinds := map[replay.Kind]bool{}
	for i, r := range reports {
		st := settingStroke(i, n)
		for _, run := range runsByKind(thin(r.Points, MaxPoints)) {
			kinds[run.kind] = true
			pts := make([]pt, len(run.points))
			for k, p := range run.points {
				pts[k] = pt{f.x(p.Turn), f.y(float64(p.Tokens))}
			}
			st.dash = kindDash[run.kind]
			c.polyline(pts, st, fmt.Sprintf("series %s", run.kind))
		}
	}
	marked := map[rules.DecisionKind]bool{}
	for i, r := range reports {
		dx := (float64(i) - float64(n-1)/2) * 5
		colour := Palette[i%len(Palette)]
		for d, dec := range r.Decisions {
			for _, km := range kindMarks {
				if !hasKind(dec, km.kind) {
					continue
				}
				marked[km.kind] = true
				tip := fmt.Sprintf("%s at turn %d: %s tokens (%s)", km.label, dec.Turn, tokLabel(float64(dec.Tokens)), dec.Kind)
				if n > 1 {
					tip = r.Label + ": " + tip
				}
				c.mark(km.shape, f.x(dec.Turn)+dx, f.y(float64(dec.Tokens)), colour, i == 0,
					fmt.Sprintf(`class="decision k-%s" data-s="%d" data-d="%d"`, km.kind, i, d), tip)
			}
		}
	}
	legend(c, f, reports, kinds, marked, window)
}

// settingStroke is setting i of n's line: with more than one setting, the
// first is wide and pale and each later one narrower on top of it, so
// that where they coincide every colour shows.
func settingStroke(i, n int) stroke {
	s := stroke{colour: Palette[i%len(Palette)], width: 1.6}
	if n > 1 && i < n-1 {
		s.width = 1.6 + 3.4*float64(n-1-i)/float64(n-1)
		s.opacity = 0.45
	}
	return s
}

func hasKind(d replay.Decision, k rules.DecisionKind) bool {
	for _, x := range d.Kinds {
		if x == string(k) {
			return true
		}
	}
	return false
}

// thresholds draws each setting's thresholds as thin dashed lines, in
// the setting's colour (grey where every setting has it), labelled with
// name and level at the plot's left edge (where a filling window's line
// seldom is), labels pushed apart where levels lie close.
func thresholds(c canvas, f frame, all [][]replay.Threshold, window int64) {
	type label struct {
		y            float64
		text, colour string
	}
	var labels []label
	seen := map[string]bool{}
	for i, ts := range all {
		for _, t := range ts {
			key := fmt.Sprintf("%s@%.0f", t.Name, t.Tokens)
			if seen[key] || t.Tokens <= 0 || t.Tokens > f.yMax {
				continue
			}
			seen[key] = true
			colour := Palette[i%len(Palette)]
			if len(all) > 1 && shared(all, t) {
				colour = "#777777"
			}
			y := f.y(t.Tokens)
			c.polyline([]pt{{padL, y}, {padL + f.plotW, y}}, stroke{colour: colour, width: 1, dash: []float64{2, 3}, opacity: 0.8}, "threshold")
			labels = append(labels, label{y, t.Name + " " + thousands(int64(t.Tokens)), colour})
		}
	}
	sort.SliceStable(labels, func(i, j int) bool { return labels[i].y < labels[j].y })
	for i := range labels {
		if i > 0 && labels[i].y-labels[i-1].y < 13 {
			labels[i].y = labels[i-1].y + 13
		}
		// A white ground keeps a label readable where a line crosses it.
		if w, err := render.Measure(labels[i].text, fontSize); err == nil {
			c.rect(padL+4, labels[i].y-3-fontSize+1, w+4, fontSize+2, "#fff", "")
		}
		c.text(padL+6, labels[i].y-3, labels[i].text, fontSize, labels[i].colour, start, false)
	}
}

func shared(all [][]replay.Threshold, t replay.Threshold) bool {
	for _, ts := range all {
		found := false
		for _, u := range ts {
			found = found || u == t
		}
		if !found {
			return false
		}
	}
	return true
}

// legend names, right of the plot: the settings (colour, and how their
// marks are drawn), the kinds of figure, the decision marks and the
// window.
func legend(c canvas, f frame, reports []*replay.Report, kinds map[replay.Kind]bool, marked map[rules.DecisionKind]bool, window int64) {
	x := padL + f.plotW + 14
	y := f.top + padT + 6
	line := func(s stroke, text string) {
		y += 16
		c.polyline([]pt{{x, y - 4}, {x + 26, y - 4}}, s, "")
		c.text(x+34, y, text, fontSize, "#222", start, false)
	}
	n := len(reports)
	if n > 1 {
		for i, r := range reports {
			s := settingStroke(i, n)
			line(s, clip(r.Label, 24))
			how := "marks filled"
			if i > 0 {
				how = "marks outlined"
			}
			y += 13
			c.mark(kindMarks[2].shape, x+13, y-4, Palette[i%len(Palette)], i == 0, "", "")
			c.text(x+34, y, how, 10, "#555", start, false)
		}
		y += 8
	}
	for _, k := range []replay.Kind{replay.Measured, replay.Estimated, replay.Projected} {
		if kinds[k] {
			line(stroke{colour: "#555555", width: 1.6, dash: kindDash[k]}, string(k))
		}
	}
	y += 8
	for _, km := range kindMarks {
		if !marked[km.kind] {
			continue
		}
		y += 16
		c.mark(km.shape, x+13, y-4, "#444444", true, "", "")
		c.text(x+34, y, km.label, fontSize, "#222", start, false)
	}
	if window > 0 {
		y += 8
		line(stroke{colour: "#333333", width: 1.5}, "window "+tokLabel(float64(window)))
	}
}
