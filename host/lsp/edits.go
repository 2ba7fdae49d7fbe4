package lsp

import (
	"bytes"
	"slices"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// applyChanges applies one didChange's content changes, in order, each to
// the text the ones before it left. A batch of incremental edits (a
// multi-cursor edit sends thousands) is applied in one pass over pieces of
// at most pieceBytes: each edit copies the piece or two it touches, not
// the document, and the document is put together once at the end. A text
// that grows past maxDocBytes is dropped until the client sends it whole.
// Under the server's lock.
func (d *document) applyChanges(changes []any) {
	var e *editor // the batch in progress, nil outside one
	flush := func() {
		if e != nil {
			d.setText(e.bytes())
			e = nil
		}
	}
	for _, c := range changes {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			e = nil // replaced whole
			d.setText([]byte(c.Text))
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				continue
			}
			if e == nil {
				if d.text == nil {
					continue // dropped: only a whole text brings it back
				}
				if len(changes) == 1 {
					// One edit: the line index finds its place at once.
					d.setText(d.text.apply(*c.Range, c.Text))
					continue
				}
				e = newEditor(d.text.src)
			}
			e.replace(*c.Range, c.Text)
			if e.size > maxDocBytes {
				e = nil
				d.gen++
				d.text, d.dropped = nil, true
			}
		}
	}
	flush()
}

// pieceBytes is the most an editor's piece holds, but for a cut moved to
// the start of a character.
const pieceBytes = 8 << 10

// editor is a text being edited, as pieces in order.
type editor struct {
	ps   []piece // never empty: an empty text is one empty piece
	size int     // bytes in all pieces
}

// piece is a part of the text with its newlines counted and, once asked,
// its UTF-16 units.
type piece struct {
	b   []byte
	nl  int
	u16 int // -1 until counted
}

func (p *piece) units() int {
	if p.u16 < 0 {
		p.u16 = 0
		for i := 0; i < len(p.b); {
			r, w := utf8.DecodeRune(p.b[i:])
			p.u16 += utf16Len(r)
			i += w
		}
	}
	return p.u16
}

func newEditor(src []byte) *editor {
	e := &editor{ps: appendPieces(nil, src), size: len(src)}
	if len(e.ps) == 0 {
		e.ps = []piece{{u16: -1}}
	}
	return e
}

// appendPieces cuts b into pieces of at most pieceBytes, each cut before
// the start of a character (b is shared, never written).
func appendPieces(ps []piece, b []byte) []piece {
	for len(b) > 0 {
		n := len(b)
		if n > pieceBytes {
			n = pieceBytes
			for n > pieceBytes/2 && !utf8.RuneStart(b[n]) {
				n--
			}
		}
		ps = append(ps, piece{b: b[:n:n], nl: bytes.Count(b[:n], []byte{'\n'}), u16: -1})
		b = b[n:]
	}
	return ps
}

// loc is a place in the text: a piece and a byte offset in it.
type loc struct{ i, off int }

func (a loc) less(b loc) bool { return a.i < b.i || a.i == b.i && a.off < b.off }

// norm moves a place at the end of a piece to the start of the next, so
// that one place has one loc.
func (e *editor) norm(l loc) loc {
	for l.off == len(e.ps[l.i].b) && l.i+1 < len(e.ps) {
		l = loc{l.i + 1, 0}
	}
	return l
}

// byteAfter is the byte after l's, or 0 at the end.
func (e *editor) byteAfter(l loc) byte {
	l.off++
	l = e.norm(l)
	if l.off < len(e.ps[l.i].b) {
		return e.ps[l.i].b[l.off]
	}
	return 0
}

// locate is text.offset on the pieces: a line past the end is the end of
// the text, a character past the line's end is the line's end (before its
// \r\n or \n).
func (e *editor) locate(p protocol.Position) loc {
	l := loc{}
	if line := int(p.Line); line > 0 {
		seen := 0
		for l.i < len(e.ps) && seen+e.ps[l.i].nl < line {
			seen += e.ps[l.i].nl
			l.i++
		}
		if l.i == len(e.ps) {
			last := len(e.ps) - 1
			return e.norm(loc{last, len(e.ps[last].b)})
		}
		for b := e.ps[l.i].b; seen < line; l.off++ {
			if b[l.off] == '\n' {
				seen++
			}
		}
	}
	l = e.norm(l)
	for units, want := 0, int(p.Character); units < want; {
		pc := &e.ps[l.i]
		if l.off == len(pc.b) {
			break // the end of the text (norm moved past every other end)
		}
		if l.off == 0 && pc.nl == 0 && units+pc.units() <= want && !(pc.b[len(pc.b)-1] == '\r' && e.byteAfter(loc{l.i, len(pc.b) - 1}) == '\n') {
			// The line goes on through the whole piece.
			units += pc.units()
			l = e.norm(loc{l.i, len(pc.b)})
			continue
		}
		c := pc.b[l.off]
		if c == '\n' || c == '\r' && e.byteAfter(l) == '\n' {
			break
		}
		r, w := utf8.DecodeRune(pc.b[l.off:])
		units += utf16Len(r)
		l = e.norm(loc{l.i, l.off + w})
	}
	return l
}

// replace replaces a range by s: the pieces it spans become one part, a
// small one joined to a neighbour, cut again into pieces.
func (e *editor) replace(r protocol.Range, s string) {
	a, z := e.locate(r.Start), e.locate(r.End)
	if z.less(a) {
		a, z = z, a
	}
	lo, hi := a.i, z.i
	head, tail := e.ps[lo].b[:a.off], e.ps[hi].b[z.off:]
	var prev, next []byte
	if n := len(head) + len(s) + len(tail); n < pieceBytes/4 {
		if lo > 0 && n+len(e.ps[lo-1].b) <= pieceBytes {
			lo--
			prev = e.ps[lo].b
		} else if hi+1 < len(e.ps) && n+len(e.ps[hi+1].b) <= pieceBytes {
			hi++
			next = e.ps[hi].b
		}
	}
	part := make([]byte, 0, len(prev)+len(head)+len(s)+len(tail)+len(next))
	part = append(append(append(append(append(part, prev...), head...), s...), tail...), next...)
	for _, p := range e.ps[lo : hi+1] {
		e.size -= len(p.b)
	}
	e.size += len(part)
	repl := appendPieces(nil, part)
	if len(repl) == 0 && len(e.ps) == hi+1-lo {
		repl = []piece{{u16: -1}} // the text is now empty
	}
	e.ps = slices.Replace(e.ps, lo, hi+1, repl...)
}

// bytes puts the text together.
func (e *editor) bytes() []byte {
	out := make([]byte, 0, e.size)
	for _, p := range e.ps {
		out = append(out, p.b...)
	}
	return out
}
