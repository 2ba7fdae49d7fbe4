package render

import (
	"bytes"
	"context"
	"fmt"

	"github.com/goccy/go-graphviz"
)

// Render draws DOT source as "svg" or "png" with Graphviz compiled to
// WebAssembly, in process: nothing to install. SVG comes from Graphviz's
// own renderer; PNG from pngRenderer, on the same layout.
func Render(ctx context.Context, dot []byte, format string) ([]byte, error) {
	switch format {
	case "svg":
	case "png":
		return renderPNG(ctx, dot)
	default:
		return nil, fmt.Errorf("cannot render %q: svg or png", format)
	}
	g, err := graphviz.New(ctx)
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
	if err := g.Render(ctx, gr, graphviz.SVG, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
