package chart

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/fogleman/gg"
	"github.com/resetpolicy/resetpolicy/host/render"
)

type pt struct{ X, Y float64 }

// stroke is how a line is drawn.
type stroke struct {
	colour  string // #rrggbb
	width   float64
	dash    []float64
	opacity float64 // 0: opaque
}

// anchor places text at its start, middle or end.
type anchor int

const (
	start anchor = iota
	middle
	end
)

// canvas is what a chart draws on: an SVG writer or a PNG rasteriser.
type canvas interface {
	rect(x, y, w, h float64, fill, line string)
	polyline(pts []pt, s stroke, class string)
	// mark draws a decision's shape at (x, y): filled in colour, or
	// outlined in it; attrs and title are the SVG's data and tooltip.
	mark(shape shape, x, y float64, colour string, filled bool, attrs, title string)
	text(x, y float64, s string, size float64, colour string, a anchor, rotate bool)
}

// svgCanvas writes SVG elements.
type svgCanvas struct{ b *bytes.Buffer }

func (c svgCanvas) rect(x, y, w, h float64, fill, line string) {
	fmt.Fprintf(c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s"/>`, x, y, w, h, fill, orNone(line))
}

func (c svgCanvas) polyline(pts []pt, s stroke, class string) {
	fmt.Fprintf(c.b, `<polyline`)
	if class != "" {
		fmt.Fprintf(c.b, ` class="%s"`, class)
	}
	fmt.Fprintf(c.b, ` fill="none" stroke="%s" stroke-width="%g" stroke-linejoin="round"`, s.colour, s.width)
	if len(s.dash) > 0 {
		fmt.Fprintf(c.b, ` stroke-dasharray="%s"`, floats(s.dash))
	}
	if s.opacity > 0 {
		fmt.Fprintf(c.b, ` stroke-opacity="%g"`, s.opacity)
	}
	c.b.WriteString(` points="`)
	for i, p := range pts {
		if i > 0 {
			c.b.WriteByte(' ')
		}
		fmt.Fprintf(c.b, "%.1f,%.1f", p.X, p.Y)
	}
	c.b.WriteString(`"/>`)
}

func (c svgCanvas) mark(sh shape, x, y float64, colour string, filled bool, attrs, title string) {
	fill, line, w := colour, "#fff", 1.0
	if !filled {
		fill, line, w = "#fff", colour, 2.0
	}
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(c.b, `<g%s>`, attrs)
	if title != "" {
		fmt.Fprintf(c.b, `<title>%s</title>`, esc(title))
	}
	if sh.circle {
		fmt.Fprintf(c.b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" stroke-width="%g"/>`, x, y, sh.size, fill, line, w)
	} else {
		c.b.WriteString(`<polygon points="`)
		for i, p := range sh.at(x, y) {
			if i > 0 {
				c.b.WriteByte(' ')
			}
			fmt.Fprintf(c.b, "%.1f,%.1f", p.X, p.Y)
		}
		fmt.Fprintf(c.b, `" fill="%s" stroke="%s" stroke-width="%g" stroke-linejoin="round"/>`, fill, line, w)
	}
	c.b.WriteString(`</g>`)
}

func (c svgCanvas) text(x, y float64, s string, size float64, colour string, a anchor, rotate bool) {
	fmt.Fprintf(c.b, `<text x="%.1f" y="%.1f" font-size="%g" fill="%s"`, x, y, size, colour)
	switch a {
	case middle:
		c.b.WriteString(` text-anchor="middle"`)
	case end:
		c.b.WriteString(` text-anchor="end"`)
	}
	if rotate {
		fmt.Fprintf(c.b, ` transform="rotate(-90 %.1f %.1f)"`, x, y)
	}
	fmt.Fprintf(c.b, `>%s</text>`, esc(s))
}

// pngCanvas rasterises onto a gg context; text goes through host/render's
// face, so it is the diagrams' text.
type pngCanvas struct {
	dc  *gg.Context
	err error
}

func (c *pngCanvas) colour(hex string, opacity float64) {
	c.dc.SetHexColor(hex)
	if opacity > 0 {
		r, g, b := hexRGB(hex)
		c.dc.SetRGBA(r, g, b, opacity)
	}
}

func (c *pngCanvas) rect(x, y, w, h float64, fill, line string) {
	c.dc.SetDash()
	c.dc.DrawRectangle(x, y, w, h)
	c.colour(fill, 0)
	if line == "" {
		c.dc.Fill()
		return
	}
	c.dc.FillPreserve()
	c.dc.SetLineWidth(1)
	c.colour(line, 0)
	c.dc.Stroke()
}

func (c *pngCanvas) polyline(pts []pt, s stroke, _ string) {
	if len(pts) == 0 {
		return
	}
	c.dc.SetDash(s.dash...)
	c.dc.SetLineWidth(s.width)
	c.dc.SetLineJoin(gg.LineJoinRound)
	c.colour(s.colour, s.opacity)
	c.dc.MoveTo(pts[0].X, pts[0].Y)
	for _, p := range pts[1:] {
		c.dc.LineTo(p.X, p.Y)
	}
	c.dc.Stroke()
	c.dc.SetDash()
}

func (c *pngCanvas) mark(sh shape, x, y float64, colour string, filled bool, _, _ string) {
	c.dc.SetDash()
	path := func() {
		if sh.circle {
			c.dc.DrawCircle(x, y, sh.size)
			return
		}
		ps := sh.at(x, y)
		c.dc.MoveTo(ps[0].X, ps[0].Y)
		for _, p := range ps[1:] {
			c.dc.LineTo(p.X, p.Y)
		}
		c.dc.ClosePath()
	}
	fill, line, w := colour, "#ffffff", 1.0
	if !filled {
		fill, line, w = "#ffffff", colour, 2.0
	}
	path()
	c.colour(fill, 0)
	c.dc.FillPreserve()
	c.dc.SetLineWidth(w)
	c.colour(line, 0)
	c.dc.Stroke()
}

func (c *pngCanvas) text(x, y float64, s string, size float64, colour string, a anchor, rotate bool) {
	if c.err != nil {
		return
	}
	w, err := render.Measure(s, size)
	if err != nil {
		c.err = err
		return
	}
	c.dc.Push()
	if rotate {
		c.dc.RotateAbout(-math.Pi/2, x, y)
	}
	switch a {
	case middle:
		x -= w / 2
	case end:
		x -= w
	}
	c.colour(colour, 0)
	c.err = render.DrawString(c.dc, s, x, y, size)
	c.dc.Pop()
}

func hexRGB(hex string) (r, g, b float64) {
	var x, y, z int
	fmt.Sscanf(strings.TrimPrefix(hex, "#"), "%02x%02x%02x", &x, &y, &z)
	return float64(x) / 255, float64(y) / 255, float64(z) / 255
}

func floats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = fmt.Sprintf("%g", f)
	}
	return strings.Join(s, " ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
