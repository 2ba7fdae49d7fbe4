package hcltree

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// encoding builds an encoding of src by hand: the header Encode writes,
// then the table of names and the body's numbers as given. Each item is
// an int (a uvarint), a -int via neg (a zigzag varint) or a string (its
// length and bytes).
func encoding(src string, names []string, items ...any) []byte {
	b := binary.AppendUvarint([]byte(magic), uint64(len(src)))
	b = binary.LittleEndian.AppendUint64(b, digest([]byte(src)))
	b = binary.AppendUvarint(b, uint64(len(names)+1))
	for _, n := range names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	for _, it := range items {
		switch x := it.(type) {
		case int:
			b = binary.AppendUvarint(b, uint64(x))
		case neg:
			b = binary.AppendVarint(b, int64(x))
		case string:
			b = binary.AppendUvarint(b, uint64(len(x)))
			b = append(b, x...)
		}
	}
	return b
}

// neg is a signed number, written as encoder.int writes it.
type neg int

// rng is a range as encoder.rng writes it, each start relative to the
// previous range's: here always line 1 from byte 0, so the deltas are the
// positions themselves when prev is the zero position and 0 after.
func rng(line, col, byt, endLine, endCol, endByte int) []any {
	return []any{neg(line), col, neg(byt), endLine - line, endCol, endByte - byt}
}

func cat(parts ...[]any) []any {
	var out []any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// body is a body of ranges at the file's start holding the given
// attributes (name index, then its expression's items).
func body(attrs ...[]any) []any {
	out := cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{len(attrs) + 1})
	for _, a := range attrs {
		out = append(out, a...)
	}
	return append(out, 0) // blocks: nil
}

// attr is attribute name n with three empty ranges and expression x.
func attr(n int, x ...any) []any {
	return cat([]any{n}, rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), x)
}

func TestHandMadeEncodingDecodes(t *testing.T) {
	const src = `a = "x"`
	// a literal "x" whose text is bytes 5..6 of the source (inside the quotes).
	enc := encoding(src, []string{"a"}, body(attr(0, cat([]any{tagLiteral, litSource}, rng(0, 6, 5, 0, 7, 6))...))...)
	f, err := Decode(enc, []byte(src), "x.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if f.Body == nil {
		t.Fatal("no body")
	}
}

// Each malformed encoding is refused with the reason, none panics, and
// none allocates by what it claims rather than by what it holds.
func TestMalformedEncodingsAreRefused(t *testing.T) {
	const src = `a = "x"`
	lit := func(r []any) []any { return cat([]any{tagLiteral, litSource}, r) }
	cases := []struct {
		name  string
		enc   []byte
		error string
	}{
		{"a count past the end", encoding(src, []string{"a"}, cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{1 << 30})...), "past the end"},
		{"a count one past the end", encoding(src, []string{"a"}, cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{2})...), "past the end"},
		{"a name past the table", encoding(src, []string{"a"}, body(attr(1, lit(rng(0, 6, 5, 0, 7, 6))...))...), "not in the table"},
		{"a range past the source", encoding(src, []string{"a"}, body(attr(0, lit(rng(0, 6, 5, 0, 8, len(src)+1))...))...), "outside the source"},
		{"bytes after the body", append(encoding(src, []string{"a"}, body(attr(0, lit(rng(0, 6, 5, 0, 7, 6))...))...), 0), "trailing bytes"},
		{"an attribute step first", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagTraversal, 2, stepAttr, 0}, rng(0, 5, 4, 0, 6, 5), rng(0, 5, 0, 0, 6, 1))...))...), "out of place"},
		{"a root step later", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagTraversal, 3, stepRoot, 0}, rng(0, 5, 4, 0, 6, 5), []any{stepRoot, 0}, rng(0, 5, 0, 0, 6, 1), rng(0, 5, 0, 0, 6, 1))...))...), "out of place"},
		{"a key flag not 0 or 1", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagObjectKey, 2}, lit(rng(0, 6, 5, 0, 7, 6)))...))...), "neither 0 nor 1"},
		{"an unknown tag", encoding(src, []string{"a"}, body(attr(0, 99))...), "unknown expression tag"},
		{"an unknown literal kind", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagLiteral, 99}, rng(0, 6, 5, 0, 7, 6))...))...), "unknown literal kind"},
		{"a number that is not one", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagLiteral, litNumber}, rng(0, 6, 5, 0, 7, 6))...))...), "the number at"},
		{"a raw range that does not parse", encoding(src, []string{"a"}, body(attr(0, cat([]any{tagRaw}, rng(0, 1, 0, 0, 4, 3))...))...), "does not parse"},
		{"a string past the end", encoding(src, []string{"a"}, body(attr(0, []any{tagLiteral, litString, 1 << 20}...))...), "string past the end"},
		{"a number past any size", append(encoding(src, nil), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), "past any size"},
		{"a top-level block past the end", encoding(src, []string{"a"}, cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{0, 2, 1 << 20})...), "past the end"},
		{"a top-level block longer than its length", encoding(src, []string{"a"}, cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{0, 2, 1, 0, 0, 0}, rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{0, 0})...), "its length says"},
		{"a top-level block shorter than its length", encoding(src, []string{"a"}, cat(rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{0, 2, 36, 0, 0, 0}, rng(1, 1, 0, 1, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), rng(0, 1, 0, 0, 1, 0), []any{0, 0, 0})...), "its length says"},
		{"not an encoding", []byte("nonsense"), "not an encoded syntax tree"},
		{"a header cut short", []byte(magic), "not an encoded syntax tree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.enc, []byte(src), "x.hcl")
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Fatalf("error %v, want one saying %q", err, c.error)
			}
		})
	}
}

// TestRangeNumbersReadAsWritten: each of a range's six numbers is read as
// written when it alone takes more than one byte (the decoder reads six
// one-byte numbers at once, and anything else one by one).
func TestRangeNumbersReadAsWritten(t *testing.T) {
	src := `a = "x"` + "\n#" + strings.Repeat("x", 400)
	cases := []hcl.Range{
		{Start: hcl.Pos{Line: 150, Column: 1, Byte: 0}, End: hcl.Pos{Line: 150, Column: 1, Byte: 0}},
		{Start: hcl.Pos{Line: 1, Column: 150, Byte: 0}, End: hcl.Pos{Line: 1, Column: 1, Byte: 0}},
		{Start: hcl.Pos{Line: 1, Column: 1, Byte: 150}, End: hcl.Pos{Line: 1, Column: 1, Byte: 150}},
		{Start: hcl.Pos{Line: 1, Column: 1, Byte: 0}, End: hcl.Pos{Line: 151, Column: 1, Byte: 0}},
		{Start: hcl.Pos{Line: 1, Column: 1, Byte: 0}, End: hcl.Pos{Line: 1, Column: 150, Byte: 0}},
		{Start: hcl.Pos{Line: 1, Column: 1, Byte: 0}, End: hcl.Pos{Line: 1, Column: 1, Byte: 150}},
		{Start: hcl.Pos{Line: 2, Column: 3, Byte: 4}, End: hcl.Pos{Line: 5, Column: 6, Byte: 7}},
	}
	for _, want := range cases {
		s, e := want.Start, want.End
		first := []any{neg(s.Line), s.Column, neg(s.Byte), e.Line - s.Line, e.Column, e.Byte - s.Byte}
		enc := encoding(src, nil, cat(first, []any{neg(0), 1, neg(0), 0, 1, 0}, []any{1, 0})...)
		f, err := Decode(enc, []byte(src), "x.hcl")
		if err != nil {
			t.Fatalf("%v: %v", want, err)
		}
		want.Filename = "x.hcl"
		if got := f.Body.(*hclsyntax.Body).SrcRange; got != want {
			t.Errorf("read %v, written %v", got, want)
		}
	}
}
