package render

import (
	"bytes"
	"fmt"
	"html"
	"strings"
)

// writeSVG writes the scene as SVG 1.1. Each state is a <g class="state">
// and each edge a <g class="edge">, with an id, data-* attributes naming
// the state, or the edge's ends, events and rules (space-separated), and
// a <title> (the tooltip) naming the rules behind an edge per event, so a
// page embedding the SVG can make them clickable.
func writeSVG(sc *scene) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s" font-size="%g">
<rect width="100%%" height="100%%" fill="white"/>
`, sc.W, sc.H, sc.W, sc.H, attr(fontFamily), fontSize)
	for _, t := range sc.Titles {
		fmt.Fprintf(&b, `<text class="title" x="%.1f" y="%.1f" font-size="%g" textLength="%.1f" lengthAdjust="spacingAndGlyphs">%s</text>
`, t.X, t.Y, fontSize+1, t.Width, esc(t.Text))
	}
	for _, w := range sc.Wires {
		fmt.Fprintf(&b, `<g class="edge" id="%s" data-from="%s" data-to="%s" data-events="%s" data-rules="%s"><title>%s</title>
<path d="%s" fill="none" stroke="#333" stroke-width="1"/>
<polygon points="%s" fill="#333"/>
`, w.ID, attr(w.From), attr(w.To), attr(strings.Join(w.Events, " ")), attr(strings.Join(w.Rules, " ")), esc(w.Title), pathData(w.Path), points(w.Arrow[:]))
		for i, l := range w.Label {
			y := w.LY + labelSize*(float64(i)*lineHeight+1)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="%g" fill="#225" textLength="%.1f" lengthAdjust="spacingAndGlyphs">%s</text>
`, w.LX, y, labelSize, w.Widths[i], esc(l))
		}
		b.WriteString("</g>\n")
	}
	for _, bx := range sc.Boxes {
		class := "state"
		stroke, dash, width, fill, ink := "#333", "", 1.0, "white", "black"
		switch {
		case bx.Every:
			class += " every"
			dash, fill, ink = ` stroke-dasharray="4 3"`, "#f4f4f4", "#444"
		case bx.NA:
			class += " unreached"
			dash, stroke, ink = ` stroke-dasharray="2 2"`, "#999", "#888"
		case bx.Initial:
			class += " initial"
			width = 2
		}
		title := bx.Title
		if bx.NA {
			title += " (not reached)"
		}
		fmt.Fprintf(&b, `<g class="%s" id="%s" data-state="%s"><title>%s</title>
<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="6" fill="%s" stroke="%s" stroke-width="%g"%s/>
`, class, bx.ID, attr(bx.State), esc(title), bx.X, bx.Y, bx.W, bx.H, fill, stroke, width, dash)
		for i, l := range bx.Lines {
			y := bx.Y + padY + fontSize*(float64(i)*lineHeight+1)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s" textLength="%.1f" lengthAdjust="spacingAndGlyphs">%s</text>
`, bx.X+padX, y, ink, bx.Widths[i], esc(l))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func pathData(p []pt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "M%.1f,%.1f", p[0].X, p[0].Y)
	for i := 1; i+2 < len(p); i += 3 {
		fmt.Fprintf(&b, " C%.1f,%.1f %.1f,%.1f %.1f,%.1f", p[i].X, p[i].Y, p[i+1].X, p[i+1].Y, p[i+2].X, p[i+2].Y)
	}
	return b.String()
}

func points(p []pt) string {
	var parts []string
	for _, q := range p {
		parts = append(parts, fmt.Sprintf("%.1f,%.1f", q.X, q.Y))
	}
	return strings.Join(parts, " ")
}

func esc(s string) string { return html.EscapeString(s) }

func attr(s string) string { return strings.ReplaceAll(html.EscapeString(s), "\n", "&#10;") }
