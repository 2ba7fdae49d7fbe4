package render_test

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/host/render"
)

// TestPNGEdgesAreStrokes renders new_context's diagrams to PNG and counts
// the dark pixels: below 5% and above 0.2% means edges are lines, not
// filled shapes (a curve filled solid darkens about 16% of it), and
// something (edges, boxes, labels) was drawn.
func TestPNGEdgesAreStrokes(t *testing.T) {
	ds, err := graph.PerSlot(load(t, "new_context"), nil, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.Render(ds, "png")
	if err != nil {
		t.Fatal(err)
	}
	im, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := im.Bounds()
	if r.Dx() < 100 || r.Dy() < 100 {
		t.Fatalf("image is %v", r)
	}
	var dark, clear int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, ca := im.At(x, y).RGBA()
			if ca < 0x8000 {
				clear++
			} else if (cr+cg+cb)/3 < 0x4000 {
				dark++
			}
		}
	}
	n := float64(r.Dx() * r.Dy())
	if share := float64(dark) / n; share > 0.05 || share < 0.002 {
		t.Errorf("%.1f%% of the %v image is dark: want 0.2%%–5%% (edges drawn as lines)", 100*share, r)
	}
	if clear > 0 {
		t.Errorf("%d pixels are transparent: the background is white", clear)
	}
}
