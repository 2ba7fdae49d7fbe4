package render

import (
	"fmt"

	"github.com/resetpolicy/resetpolicy/engine/graph"
)

// Render draws the diagrams, stacked, as "svg" or "png". The layout and
// the drawing are Go: no runtime to set up, nothing read or written but
// the result, and the cost is bounded by the diagrams' size (which
// graph.Limits bounds) and maxSegments.
func Render(ds []*graph.Diagram, format string) ([]byte, error) {
	switch format {
	case "svg", "png":
	default:
		return nil, fmt.Errorf("cannot render %q: svg or png", format)
	}
	sc, err := layoutDiagrams(ds)
	if err != nil {
		return nil, err
	}
	if format == "svg" {
		return writeSVG(sc), nil
	}
	return writePNG(sc)
}

// SVG draws the diagrams as SVG: what a page embeds. States are
// <g class="state" data-state="…"> (class also "initial", "every" or
// "unreached"), edges <g class="edge" data-from="…" data-to="…"
// data-events="…" data-rules="…">, each with a unique id and a <title>
// (an edge's names its rules, one line per event).
func SVG(ds []*graph.Diagram) ([]byte, error) { return Render(ds, "svg") }

func errTooLarge(w, h int) error {
	return fmt.Errorf("the picture would be %d×%d pixels, more than %d; draw fewer slots or use svg", w, h, maxPixels)
}
