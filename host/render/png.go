package render

import (
	"bytes"
	"context"
	"fmt"

	"github.com/fogleman/gg"
	"github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/gvc"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

// pngRenderer draws Graphviz's render calls onto an image, in place of
// go-graphviz's own PNG renderer. That one takes the filled flag the
// WebAssembly bridge hands it for every Bézier curve, which is set for
// edges too, so it fills each edge curve solid black (and it fills a
// filled shape without stroking its outline). Here a curve is filled
// only when the object being drawn has a fill (a rounded node does, an
// edge does not), and a filled shape is filled and then outlined, as the
// SVG renderer does. Text is set in Go Regular, the face go-graphviz
// falls back to when the named font is not installed, so the picture does
// not depend on the machine's fonts.
type pngRenderer struct {
	*graphviz.DefaultRenderEngine
	dc    *gg.Context
	out   bytes.Buffer
	faces map[float64]font.Face
}

func (r *pngRenderer) sx(job *graphviz.Job) float64 { return job.Scale().X() }
func (r *pngRenderer) sy(job *graphviz.Job) float64 { return job.Scale().Y() }

func (r *pngRenderer) BeginPage(_ context.Context, job *graphviz.Job) error {
	r.dc = gg.NewContext(int(job.Width()), int(job.Height()))
	t := job.Translation()
	r.dc.Translate(r.sx(job)*t.X(), -r.sy(job)*t.Y())
	return nil
}

func (r *pngRenderer) EndPage(_ context.Context, job *graphviz.Job) error {
	r.out.Reset()
	if err := r.dc.EncodePNG(&r.out); err != nil {
		return err
	}
	job.SetOutputData(r.out.Bytes())
	job.SetOutputDataPosition(uint(r.out.Len()))
	return nil
}

func setColor(dc *gg.Context, c *graphviz.Color) {
	v := c.RGBAUint()
	dc.SetRGBA255(int(v[0]), int(v[1]), int(v[2]), int(v[3]))
}

// pen sets the line width and dashes of the object being drawn.
func (r *pngRenderer) pen(job *graphviz.Job) {
	o := job.Object()
	s := r.sx(job)
	switch o.Pen() {
	case gvc.PenDashed:
		r.dc.SetDash(4*s, 4*s)
	case gvc.PenDotted:
		r.dc.SetDash(1*s, 3*s)
	default:
		r.dc.SetDash()
	}
	r.dc.SetLineWidth(o.PenWidth() * s)
}

// paint fills the current path when filled (with the fill colour) and
// then strokes it with the pen, unless the pen is none.
func (r *pngRenderer) paint(job *graphviz.Job, filled bool) {
	o := job.Object()
	if filled {
		setColor(r.dc, o.FillColor())
		r.dc.FillPreserve()
	}
	if o.Pen() != gvc.PenNone {
		r.pen(job)
		setColor(r.dc, o.PenColor())
		r.dc.StrokePreserve()
	}
	r.dc.ClearPath()
}

func (r *pngRenderer) path(job *graphviz.Job, a []*graphviz.PointFloat) {
	r.dc.MoveTo(r.sx(job)*a[0].X(), -r.sy(job)*a[0].Y())
	for _, p := range a[1:] {
		r.dc.LineTo(r.sx(job)*p.X(), -r.sy(job)*p.Y())
	}
}

func (r *pngRenderer) Polygon(_ context.Context, job *graphviz.Job, a []*graphviz.PointFloat, filled bool) error {
	if len(a) == 0 {
		return nil
	}
	r.path(job, a)
	r.dc.ClosePath()
	r.paint(job, filled)
	return nil
}

func (r *pngRenderer) Polyline(_ context.Context, job *graphviz.Job, a []*graphviz.PointFloat) error {
	if len(a) == 0 {
		return nil
	}
	r.path(job, a)
	r.paint(job, false)
	return nil
}

func (r *pngRenderer) Ellipse(_ context.Context, job *graphviz.Job, a []*graphviz.PointFloat, filled bool) error {
	if len(a) < 2 {
		return nil
	}
	sx, sy := r.sx(job), r.sy(job)
	r.dc.DrawEllipse(sx*a[0].X(), -sy*a[0].Y(), sx*(a[1].X()-a[0].X()), sy*(a[1].Y()-a[0].Y()))
	r.paint(job, filled)
	return nil
}

func (r *pngRenderer) BezierCurve(_ context.Context, job *graphviz.Job, a []*graphviz.PointFloat, filled bool) error {
	if len(a) == 0 {
		return nil
	}
	sx, sy := r.sx(job), r.sy(job)
	r.dc.MoveTo(sx*a[0].X(), -sy*a[0].Y())
	for i := 1; i+2 < len(a); i += 3 {
		r.dc.CubicTo(sx*a[i].X(), -sy*a[i].Y(), sx*a[i+1].X(), -sy*a[i+1].Y(), sx*a[i+2].X(), -sy*a[i+2].Y())
	}
	r.paint(job, filled && job.Object().Fill() != gvc.FillNone)
	return nil
}

func (r *pngRenderer) face(size float64) (font.Face, error) {
	if f, ok := r.faces[size]; ok {
		return f, nil
	}
	ft, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	f, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	if r.faces == nil {
		r.faces = map[float64]font.Face{}
	}
	r.faces[size] = f
	return f, nil
}

func (r *pngRenderer) TextSpan(_ context.Context, job *graphviz.Job, p *graphviz.PointFloat, span *graphviz.TextSpan) error {
	f, err := r.face(span.Font().Size() * r.sy(job))
	if err != nil {
		return err
	}
	r.dc.SetFontFace(f)
	setColor(r.dc, job.Object().PenColor())
	x := p.X()
	switch span.Just() {
	case 'r':
		x -= span.Size().X()
	case 'l':
	default:
		x -= span.Size().X() / 2
	}
	y := p.Y() + span.YOffsetCenterLine() + span.YOffsetLayout()
	r.dc.DrawString(span.Text(), r.sx(job)*x, -r.sy(job)*y)
	return nil
}

// renderPNG lays out and draws a parsed graph as PNG with pngRenderer.
func renderPNG(ctx context.Context, dot []byte) ([]byte, error) {
	rp, err := graphviz.NewRenderPlugin(ctx, "png", &pngRenderer{DefaultRenderEngine: new(graphviz.DefaultRenderEngine)})
	if err != nil {
		return nil, err
	}
	dp, err := graphviz.PNGDevicePlugin(ctx)
	if err != nil {
		return nil, err
	}
	g, err := graphviz.NewWithPlugins(ctx, rp, dp)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	gr, err := graphviz.ParseBytes(dot)
	if err != nil {
		return nil, err
	}
	defer gr.Close()
	var out bytes.Buffer
	if err := g.Render(ctx, gr, graphviz.PNG, &out); err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	return out.Bytes(), nil
}

var _ gvc.RenderEngine = (*pngRenderer)(nil)
