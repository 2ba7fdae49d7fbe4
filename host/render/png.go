package render

import (
	"bytes"

	"github.com/fogleman/gg"
)

// pngScale draws the PNG at twice the SVG's size, so its text reads on a
// high-density screen.
const pngScale = 2.0

// maxPixels bounds the PNG's canvas (about 256 MB of RGBA at most).
const maxPixels = 64 << 20

// writePNG rasterises the same scene the SVG shows, with the same face.
func writePNG(sc *scene) ([]byte, error) {
	w, h := int(sc.W*pngScale+0.5), int(sc.H*pngScale+0.5)
	if w*h > maxPixels {
		return nil, errTooLarge(w, h)
	}
	dc := gg.NewContext(w, h)
	dc.Scale(pngScale, pngScale)
	dc.SetRGB(1, 1, 1)
	dc.Clear()
	text := func(s string, x, y, size, width float64, r, g, b float64) error {
		fonts.mu.Lock()
		defer fonts.mu.Unlock()
		f, err := face(size)
		if err != nil {
			return err
		}
		dc.SetFontFace(f)
		dc.SetRGB(r, g, b)
		dc.DrawString(s, x, y)
		_ = width
		return nil
	}
	for _, t := range sc.Titles {
		if err := text(t.Text, t.X, t.Y, fontSize+1, t.Width, 0, 0, 0); err != nil {
			return nil, err
		}
	}
	for _, wr := range sc.Wires {
		p := wr.Path
		dc.SetDash()
		dc.SetLineWidth(1)
		dc.SetRGB255(0x33, 0x33, 0x33)
		dc.MoveTo(p[0].X, p[0].Y)
		for i := 1; i+2 < len(p); i += 3 {
			dc.CubicTo(p[i].X, p[i].Y, p[i+1].X, p[i+1].Y, p[i+2].X, p[i+2].Y)
		}
		dc.Stroke()
		dc.MoveTo(wr.Arrow[0].X, wr.Arrow[0].Y)
		dc.LineTo(wr.Arrow[1].X, wr.Arrow[1].Y)
		dc.LineTo(wr.Arrow[2].X, wr.Arrow[2].Y)
		dc.ClosePath()
		dc.Fill()
		for i, l := range wr.Label {
			y := wr.LY + labelSize*(float64(i)*lineHeight+1)
			if err := text(l, wr.LX, y, labelSize, wr.Widths[i], 0x22/255.0, 0x22/255.0, 0x55/255.0); err != nil {
				return nil, err
			}
		}
	}
	for _, bx := range sc.Boxes {
		dc.SetDash()
		dc.SetLineWidth(1)
		fill, stroke, ink := [3]float64{1, 1, 1}, [3]float64{0.2, 0.2, 0.2}, [3]float64{0, 0, 0}
		switch {
		case bx.Every:
			dc.SetDash(4, 3)
			fill, ink = [3]float64{0.96, 0.96, 0.96}, [3]float64{0.27, 0.27, 0.27}
		case bx.NA:
			dc.SetDash(2, 2)
			stroke, ink = [3]float64{0.6, 0.6, 0.6}, [3]float64{0.53, 0.53, 0.53}
		case bx.Initial:
			dc.SetLineWidth(2)
		}
		dc.DrawRoundedRectangle(bx.X, bx.Y, bx.W, bx.H, 6)
		dc.SetRGB(fill[0], fill[1], fill[2])
		dc.FillPreserve()
		dc.SetRGB(stroke[0], stroke[1], stroke[2])
		dc.Stroke()
		for i, l := range bx.Lines {
			y := bx.Y + padY + fontSize*(float64(i)*lineHeight+1)
			if err := text(l, bx.X+padX, y, fontSize, bx.Widths[i], ink[0], ink[1], ink[2]); err != nil {
				return nil, err
			}
		}
	}
	var out bytes.Buffer
	if err := dc.EncodePNG(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
