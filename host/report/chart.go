package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// MaxChartPoints bounds the points drawn per series: a longer session is
// thinned bucket by bucket, each bucket keeping its highest point so that
// no peak is lost.
const MaxChartPoints = 600

// Palette gives each compared setting one colour; kinds of figure
// (measured, estimated, projected) are told apart by line style.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// kindDash is each kind's stroke: measured solid, estimated dotted,
// projected dashed, as in the plots `replay --plot` draws.
var kindDash = map[string]string{"measured": "", "estimated": "1.5 3", "projected": "6 4"}

const (
	chartW, chartH                 = 900, 340
	padL, padR, padT, padB float64 = 64, 190, 16, 40
)

// Chart draws one session's context over turns: one line per setting,
// styled by kind, the thresholds of each setting, and a marker per
// decision (class "decision", data-s the setting, data-d the decision's
// index in that setting's report) for the page's script to explain on
// hover.
func Chart(reports []*replay.Report, thresholds [][]replay.Threshold) string {
	maxTurn, maxTok := 1, int64(1)
	for _, r := range reports {
		maxTok = max(maxTok, r.ContextWindow)
		for _, p := range r.Points {
			maxTurn, maxTok = max(maxTurn, p.Turn), max(maxTok, p.Tokens)
		}
		for _, d := range r.Decisions {
			maxTurn, maxTok = max(maxTurn, d.Turn), max(maxTok, d.Tokens)
		}
	}
	yMax := niceCeil(float64(maxTok) * 1.04)
	plotW, plotH := chartW-padL-padR, chartH-padT-padB
	x := func(turn int) float64 { return padL + plotW*float64(turn)/float64(maxTurn) }
	y := func(tok float64) float64 { return padT + plotH*(1-tok/yMax) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-size="11">`, chartW, chartH, chartW, chartH)
	// Axes and grid.
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#fff" stroke="#999"/>`, padL, padT, plotW, plotH)
	for _, t := range ticks(yMax, 5) {
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%.0f" y="%.1f" text-anchor="end" dy="4">%s</text>`,
			padL, padL+plotW, y(t), y(t), padL-6, y(t), tokLabel(t))
	}
	for _, t := range ticks(float64(maxTurn), 8) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`, x(int(t)), padT+plotH+16, int(t))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">turn</text>`, padL+plotW/2, chartH-6.0)
	fmt.Fprintf(&b, `<text transform="translate(14 %.0f) rotate(-90)" text-anchor="middle">context tokens</text>`, padT+plotH/2)

	legendY := padT + 4
	legend := func(colour, dash, label string) {
		legendY += 16
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="2"%s/><text x="%.0f" y="%.0f" dy="4">%s</text>`,
			padL+plotW+12, padL+plotW+36, legendY, legendY, colour, dashAttr(dash), padL+plotW+42, legendY, esc(clip(label, 22)))
	}
	// Thresholds: each distinct level once, in the colour of the first
	// setting that has it; labels pushed apart where levels lie close.
	type label struct {
		y      float64
		colour string
		text   string
	}
	var labels []label
	seen := map[string]bool{}
	for i, ts := range thresholds {
		for _, t := range ts {
			key := fmt.Sprintf("%s@%.0f", t.Name, t.Tokens)
			if seen[key] || t.Tokens <= 0 || t.Tokens > yMax {
				continue
			}
			seen[key] = true
			c := Palette[i%len(Palette)]
			fmt.Fprintf(&b, `<line class="threshold" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.55" stroke-dasharray="2 2"><title>%s: %s tokens</title></line>`,
				padL, padL+plotW, y(t.Tokens), y(t.Tokens), c, esc(t.Name), tokLabel(t.Tokens))
			labels = append(labels, label{y(t.Tokens), c, clip(t.Name, 28)})
		}
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].y < labels[j].y })
	for i := range labels {
		if i > 0 && labels[i].y-labels[i-1].y < 11 {
			labels[i].y = labels[i-1].y + 11
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" dy="-3" fill="%s" font-size="10">%s</text>`, padL+4, labels[i].y, labels[i].colour, esc(labels[i].text))
	}
	for i, r := range reports {
		c := Palette[i%len(Palette)]
		if r.ContextWindow > 0 && i == 0 {
			fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#333" stroke-width="1.5"><title>context window: %s tokens</title></line>`,
				padL, padL+plotW, y(float64(r.ContextWindow)), y(float64(r.ContextWindow)), tokLabel(float64(r.ContextWindow)))
		}
		pts := thin(r.Points, MaxChartPoints)
		for _, run := range runsByKind(pts) {
			var path strings.Builder
			for _, p := range run.points {
				fmt.Fprintf(&path, "%.1f,%.1f ", x(p.Turn), y(float64(p.Tokens)))
			}
			fmt.Fprintf(&b, `<polyline class="series %s" data-s="%d" fill="none" stroke="%s" stroke-width="1.6"%s points="%s"/>`,
				run.kind, i, c, dashAttr(kindDash[run.kind]), strings.TrimSpace(path.String()))
		}
		for d, dec := range r.Decisions {
			fmt.Fprintf(&b, `<circle class="decision" data-s="%d" data-d="%d" cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="#fff"/>`,
				i, d, x(dec.Turn), y(float64(dec.Tokens)), c)
		}
		legend(c, "", r.Label)
	}
	legendY += 8
	for _, k := range []string{"measured", "estimated", "projected"} {
		legend("#555", kindDash[k], k)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// PointKind is how a point's figure was had: measured, estimated or
// projected, as the replay marks it.
func PointKind(p replay.Point) string { return string(p.Kind) }

type kindRun struct {
	kind   string
	points []replay.Point
}

// runsByKind cuts a series where its kind changes; each run starts at the
// previous run's last point so the line stays joined.
func runsByKind(pts []replay.Point) []kindRun {
	var out []kindRun
	for i, p := range pts {
		k := PointKind(p)
		if len(out) == 0 || out[len(out)-1].kind != k {
			r := kindRun{kind: k}
			if i > 0 {
				r.points = append(r.points, pts[i-1])
			}
			out = append(out, r)
		}
		out[len(out)-1].points = append(out[len(out)-1].points, p)
	}
	return out
}

// thin keeps at most n points: the first and last, and each bucket's
// highest.
func thin(pts []replay.Point, n int) []replay.Point {
	if len(pts) <= n || n < 3 {
		return pts
	}
	out := make([]replay.Point, 0, n)
	out = append(out, pts[0])
	inner := pts[1 : len(pts)-1]
	buckets := n - 2
	for k := 0; k < buckets; k++ {
		lo, hi := k*len(inner)/buckets, (k+1)*len(inner)/buckets
		if lo >= hi {
			continue
		}
		best := lo
		for j := lo + 1; j < hi; j++ {
			if inner[j].Tokens > inner[best].Tokens {
				best = j
			}
		}
		out = append(out, inner[best])
	}
	return append(out, pts[len(pts)-1])
}

func dashAttr(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// ticks gives about n round values from 0 to top.
func ticks(top float64, n int) []float64 {
	step := niceCeil(top / float64(n))
	var out []float64
	for v := 0.0; v <= top+step/1e6 && len(out) <= 2*n; v += step {
		out = append(out, v)
	}
	return out
}

func tokLabel(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// clip shortens a label to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
