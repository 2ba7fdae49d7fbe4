package lsp

import (
	"sort"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// text is a document's bytes with the offset of each line start, for
// converting between byte offsets (HCL's) and LSP positions (line and
// UTF-16 code unit).
type text struct {
	src   []byte
	lines []int
}

func newText(src []byte) *text {
	t := &text{src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// lineEnd is the offset of the end of line i (before its newline).
func (t *text) lineEnd(i int) int {
	if i+1 < len(t.lines) {
		end := t.lines[i+1] - 1
		if end > t.lines[i] && t.src[end-1] == '\r' {
			end--
		}
		return end
	}
	return len(t.src)
}

// offset converts an LSP position to a byte offset, clamping a line past
// the end to the end and a character past the line's end to the line's
// end, as the protocol asks.
func (t *text) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(t.lines) {
		return len(t.src)
	}
	off, end := t.lines[line], t.lineEnd(line)
	for units := 0; off < end && units < int(p.Character); {
		r, w := utf8.DecodeRune(t.src[off:end])
		units += utf16Len(r)
		off += w
	}
	return off
}

// position converts a byte offset to an LSP position.
func (t *text) position(off int) protocol.Position {
	off = max(0, min(off, len(t.src)))
	line := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	units := 0
	for i := t.lines[line]; i < off; {
		r, w := utf8.DecodeRune(t.src[i:off])
		units += utf16Len(r)
		i += w
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(units)}
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// pos converts an HCL position in this document. HCL keeps the byte
// offset beside line and column; the offset is used when it agrees with
// the line, and line and column (counted in characters) otherwise.
func (t *text) pos(p hcl.Pos) protocol.Position {
	if p.Byte >= 0 && p.Byte <= len(t.src) && p.Line >= 1 && p.Line <= len(t.lines) {
		line := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > p.Byte }) - 1
		if line == p.Line-1 {
			return t.position(p.Byte)
		}
	}
	line := max(p.Line-1, 0)
	if line >= len(t.lines) {
		return t.position(len(t.src))
	}
	off, end := t.lines[line], t.lineEnd(line)
	for col := 1; off < end && col < p.Column; col++ {
		_, w := utf8.DecodeRune(t.src[off:end])
		off += w
	}
	return t.position(off)
}

func (t *text) rng(r hcl.Range) protocol.Range {
	return protocol.Range{Start: t.pos(r.Start), End: t.pos(r.End)}
}

// whole is the range of the whole document.
func (t *text) whole() protocol.Range {
	return protocol.Range{End: t.position(len(t.src))}
}

// apply replaces the range of an incremental change by s.
func (t *text) apply(r protocol.Range, s string) []byte {
	start, end := t.offset(r.Start), t.offset(r.End)
	if end < start {
		start, end = end, start
	}
	out := make([]byte, 0, len(t.src)-(end-start)+len(s))
	out = append(out, t.src[:start]...)
	out = append(out, s...)
	return append(out, t.src[end:]...)
}
