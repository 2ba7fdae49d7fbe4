// Package render draws engine/graph's diagrams as SVG or PNG, in Go: a
// layered layout (layout.go), the SVG writer and a rasteriser for PNG (on
// github.com/fogleman/gg). Nothing happens at start-up: the font is parsed
// at the first drawing, and no file or environment is read.
package render
