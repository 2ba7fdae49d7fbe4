package chart

import (
	"bytes"
	"image"
	imagedraw "image/draw"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// session is one session under two settings that decide alike until turn
// 6, then one warns and resets and the other reminds.
func session() replay.PlotSession {
	var reps []*replay.Report
	for i, label := range []string{"warning_runway=12288", "warning_runway=20000"} {
		r := &replay.Report{File: "s.jsonl", Label: label, ContextWindow: 100000}
		for turn := 1; turn <= 10; turn++ {
			kind := replay.Measured
			if turn > 7 {
				kind = replay.Projected
			}
			r.Points = append(r.Points, replay.Point{Turn: turn, Tokens: int64(9000 * turn), Kind: kind})
		}
		r.Decisions = []replay.Decision{
			{Turn: 1, Tokens: 9000, Rules: []string{"status"}},                              // routine
			{Turn: 3, Tokens: 27000, Rules: []string{"nudge"}, Kinds: []string{"reminder"}}, // both alike
		}
		if i == 0 {
			r.Decisions = append(r.Decisions, replay.Decision{Turn: 6, Tokens: 54000, Kinds: []string{"warning"}},
				replay.Decision{Turn: 7, Tokens: 63000, Kinds: []string{"reset"}})
		} else {
			r.Decisions = append(r.Decisions, replay.Decision{Turn: 6, Tokens: 54000, Kinds: []string{"checkpoint"}},
				replay.Decision{Turn: 9, Tokens: 81000, Kinds: []string{"hard_reserve"}})
		}
		reps = append(reps, r)
	}
	th := [][]replay.Threshold{{{Name: "warning", Tokens: 71328}, {Name: "Pi compaction", Tokens: 83616}}, {{Name: "warning", Tokens: 63616}, {Name: "Pi compaction", Tokens: 83616}}}
	return replay.PlotSession{Reports: reps, Thresholds: th}
}

var decisionMark = regexp.MustCompile(`<g class="decision k-([a-z_]+)" data-s="(\d)" data-d="(\d)"><title>([^<]*)</title><(circle|polygon) ([^>]*)/>`)

// Every decision the policy gives a kind has its kind's mark; routine
// decisions have none; the second setting's marks are outlined and offset
// so that alike decisions show both.
func TestMarksPerDecisionKind(t *testing.T) {
	svg := Panel(session())
	got := map[string]string{}
	var at [2]string
	for _, m := range decisionMark.FindAllStringSubmatch(svg, -1) {
		got[m[2]+"/"+m[3]] = m[1] + " " + m[5]
		if m[3] == "1" {
			at[m[2][0]-'0'] = m[6]
		}
	}
	want := map[string]string{"0/1": "reminder circle", "0/2": "warning polygon", "0/3": "reset polygon",
		"1/1": "reminder circle", "1/2": "checkpoint polygon", "1/3": "hard_reserve polygon"}
	if len(got) != len(want) {
		t.Errorf("marks %v, want %v (routine decisions unmarked)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("decision %s: mark %q, want %q", k, got[k], v)
		}
	}
	// The two settings' reminders at one turn: the first filled in its
	// colour, the second outlined in its own, at another x.
	if !strings.Contains(at[0], `fill="#1f77b4"`) || !strings.Contains(at[1], `stroke="#d62728"`) || strings.Contains(at[1], `fill="#d62728"`) {
		t.Errorf("the alike reminders are drawn %q and %q: want filled and outlined", at[0], at[1])
	}
	cx := regexp.MustCompile(`cx="([0-9.]+)"`)
	if a, b := cx.FindStringSubmatch(at[0]), cx.FindStringSubmatch(at[1]); a == nil || b == nil || a[1] == b[1] {
		t.Errorf("the alike reminders sit at %v and %v: want them apart", a, b)
	}
	if !strings.Contains(svg, "warning_runway=20000: hard reserve at turn 9") {
		t.Error("a mark's title does not say its setting, kind and turn")
	}
}

// Where the settings' lines coincide both show: the first wide and pale
// under the second.
func TestComparedLinesBothShow(t *testing.T) {
	svg := Panel(session())
	lines := regexp.MustCompile(`<polyline class="series measured" fill="none" stroke="(#[0-9a-f]+)" stroke-width="([0-9.]+)"([^>]*)/>`).FindAllStringSubmatch(svg, -1)
	if len(lines) != 2 {
		t.Fatalf("%d measured lines, want one per setting", len(lines))
	}
	w0, _ := strconv.ParseFloat(lines[0][2], 64)
	w1, _ := strconv.ParseFloat(lines[1][2], 64)
	pale0, pale1 := strings.Contains(lines[0][3], "stroke-opacity"), strings.Contains(lines[1][3], "stroke-opacity")
	if lines[0][1] == lines[1][1] || w0 < w1+2 || !pale0 || pale1 {
		t.Errorf("measured lines %q: want the first setting's wider and pale, the second's narrow on top", lines)
	}
	// A threshold both settings share is grey; one of a setting is in its
	// colour, labelled with its exact level.
	for _, want := range []string{`stroke="#777777"`, "Pi compaction 83,616", "warning 71,328", "warning 63,616", `fill="#d62728">warning 63,616`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

// The PNG draws what the SVG draws: both settings' colours are on it.
func TestPNGShowsBothSettings(t *testing.T) {
	b, err := Draw([]replay.PlotSession{session()}, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if bb := img.Bounds(); bb.Dx() != int(width*pngScale) || bb.Dy() != int((height+titleH)*pngScale) {
		t.Errorf("png of %v", bb)
	}
	// Count pixels near each setting's colour, every other pixel of
	// every other row (the lines are wider than that).
	rgba := image.NewRGBA(img.Bounds())
	imagedraw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, imagedraw.Src)
	near := func(px []uint8, hex string) bool {
		x, y, z := hexRGB(hex)
		d := func(a uint8, v float64) float64 { return float64(a) - v*255 }
		return d(px[0], x)*d(px[0], x)+d(px[1], y)*d(px[1], y)+d(px[2], z)*d(px[2], z) < 300
	}
	var blue, red int
	for y := 0; y < rgba.Rect.Dy(); y += 2 {
		for x := 0; x < rgba.Rect.Dx(); x += 2 {
			px := rgba.Pix[y*rgba.Stride+4*x:]
			if near(px, Palette[0]) {
				blue++
			}
			if near(px, Palette[1]) {
				red++
			}
		}
	}
	if blue < 50 || red < 50 {
		t.Errorf("%d pixels of the first setting's colour, %d of the second's", blue, red)
	}
	if _, err := Draw(nil, "png"); err == nil {
		t.Error("a plot of no session is drawn")
	}
	if _, err := Draw([]replay.PlotSession{session()}, "gif"); err == nil {
		t.Error("a gif is drawn")
	}
}

func TestThinKeepsPeaks(t *testing.T) {
	var pts []replay.Point
	for i := 0; i < 10000; i++ {
		tok := int64(i % 97)
		if i == 5555 {
			tok = 1e6
		}
		pts = append(pts, replay.Point{Turn: i, Tokens: tok})
	}
	out := thin(pts, MaxPoints)
	if len(out) > MaxPoints || out[0].Turn != 0 || out[len(out)-1].Turn != 9999 {
		t.Fatalf("thinned to %d points, %d..%d", len(out), out[0].Turn, out[len(out)-1].Turn)
	}
	found := false
	for _, p := range out {
		found = found || p.Tokens == 1e6
	}
	if !found {
		t.Error("the peak was thinned away")
	}
}

// A series is drawn in runs of one kind, each joined to the point before.
func TestRunsByKind(t *testing.T) {
	runs := runsByKind([]replay.Point{{Turn: 1, Kind: replay.Measured}, {Turn: 2, Kind: replay.Estimated}, {Turn: 3, Kind: replay.Estimated}, {Turn: 4, Kind: replay.Projected}})
	if len(runs) != 3 || runs[1].kind != replay.Estimated || len(runs[1].points) != 3 || runs[2].points[0].Turn != 3 {
		t.Fatalf("runs %+v", runs)
	}
}
