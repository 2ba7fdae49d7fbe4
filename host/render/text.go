package render

import (
	"strings"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"github.com/fogleman/gg"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
)

// Text is set in Liberation Sans, which is metric-compatible with Arial
// and Helvetica: the SVG names those families, so a viewer with any of
// them (every desktop has one; Debian's fonts-liberation) draws the text at
// the width it was measured at, and each text element also carries that
// width (textLength), so no font can push it out of its box. The PNG draws
// with the same face. The font is parsed at the first drawing, never at
// start-up.
const fontFamily = "'Liberation Sans', Arimo, Arial, Helvetica, sans-serif"

var fonts struct {
	once  sync.Once
	err   error
	f     *opentype.Font
	mu    sync.Mutex // a font.Face is not safe for concurrent use
	faces map[float64]font.Face
}

func face(size float64) (font.Face, error) {
	fonts.once.Do(func() {
		fonts.f, fonts.err = opentype.Parse(liberationsansregular.TTF)
		fonts.faces = map[float64]font.Face{}
	})
	if fonts.err != nil {
		return nil, fonts.err
	}
	if f, ok := fonts.faces[size]; ok {
		return f, nil
	}
	f, err := opentype.NewFace(fonts.f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	fonts.faces[size] = f
	return f, nil
}

// measure returns the advance width of s at size points.
func measure(s string, size float64) (float64, error) {
	fonts.mu.Lock()
	defer fonts.mu.Unlock()
	f, err := face(size)
	if err != nil {
		return 0, err
	}
	return float64(font.MeasureString(f, s)) / 64, nil
}

// wrap breaks a list of words joined by sep into lines of about width
// characters, breaking only between words.
func wrap(words []string, sep string, width int) []string {
	var lines []string
	cur := ""
	for i, w := range words {
		piece := w
		if i < len(words)-1 {
			piece += strings.TrimRight(sep, " ")
		}
		switch {
		case cur == "":
			cur = piece
		case len(cur)+1+len(piece) > width:
			lines = append(lines, cur)
			cur = piece
		default:
			cur += " " + piece
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// FontFamily is the family list an SVG names for text measured with
// Measure: host/chart's charts set their text as the diagrams do.
const FontFamily = fontFamily

// Measure returns the advance width of s at size points in the diagrams'
// face.
func Measure(s string, size float64) (float64, error) { return measure(s, size) }

// DrawString draws s with its baseline's left end at (x, y) in the
// diagrams' face at size points: the PNG charts rasterise text as the PNG
// diagrams do.
func DrawString(dc *gg.Context, s string, x, y, size float64) error {
	fonts.mu.Lock()
	defer fonts.mu.Unlock()
	f, err := face(size)
	if err != nil {
		return err
	}
	dc.SetFontFace(f)
	dc.DrawString(s, x, y)
	return nil
}
