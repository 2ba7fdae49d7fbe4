package lang

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// TestPreparsedIsParsed: every tree of the table rebuilds as the parser
// builds its source under the shared configuration, node for node, field
// for field and location for location.
func TestPreparsedIsParsed(t *testing.T) {
	if len(preparsedTrees) == 0 {
		t.Fatal("the table has no trees")
	}
	for i, p := range preparsedTrees {
		if i > 0 && preparsedTrees[i-1].src >= p.src {
			t.Fatalf("the table is not sorted at %q", p.src)
		}
		want, err := parser.ParseWithConfig(p.src, sharedParseConfig())
		if err != nil {
			t.Fatalf("%s: %v", p.src, err)
		}
		got, ok := preparsed(p.src)
		if !ok {
			t.Errorf("%s: the tree does not decode", p.src)
			continue
		}
		if g, w := TreeShape(got.Node), TreeShape(want.Node); g != w {
			t.Errorf("%s:\nrebuilt %s\nparsed  %s", p.src, g, w)
		}
		if got.Source.String() != p.src {
			t.Errorf("%s: the tree's source is %q", p.src, got.Source.String())
		}
	}
}

// TestEncodedTreesRoundTrip: every expression of the language's tests
// that parses encodes and rebuilds to the parser's tree; a kind the
// encoding lacks is refused, not written wrong.
func TestEncodedTreesRoundTrip(t *testing.T) {
	srcs := []string{"nil == event.args", "1.5 * -event.tokens", "[1, 2][0] > 0", "event.args?.reason == 'x'", "true || !false"}
	for _, tc := range evalCases {
		srcs = append(srcs, tc.src)
	}
	for _, src := range srcs {
		want, err := parser.ParseWithConfig(src, sharedParseConfig())
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		enc, ok := encodeTree(want.Node)
		if !ok {
			t.Errorf("%s: not encoded", src)
			continue
		}
		got, ok := decodeTree(enc, src)
		if !ok {
			t.Errorf("%s: does not decode", src)
			continue
		}
		if g, w := TreeShape(got.Node), TreeShape(want.Node); g != w {
			t.Errorf("%s:\nrebuilt %s\nparsed  %s", src, g, w)
		}
	}
	for _, src := range []string{"filter([1, 2], # > 1)", "let x = 1; x", "event.text[1:2]", "{'a': 1}"} {
		tree, err := parser.ParseWithConfig(src, sharedParseConfig())
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, ok := encodeTree(tree.Node); ok {
			t.Errorf("%s: encoded, though the encoding has no tag for a node of it", src)
		}
	}
}

// TestBadEncodingsAreRefused: a tree cut short, or with a byte changed,
// is refused or rebuilds to some tree, never panics.
func TestBadEncodingsAreRefused(t *testing.T) {
	enc := preparsedTrees[0].tree
	for n := 0; n < len(enc); n++ {
		if _, ok := decodeTree(enc[:n], preparsedTrees[0].src); ok {
			t.Errorf("the encoding cut to %d of %d bytes decodes", n, len(enc))
		}
	}
	for i := 0; i < len(enc); i++ {
		for _, c := range []byte{0, 1, 0x7F, 0x80, 0xFF} {
			b := []byte(enc)
			b[i] = c
			decodeTree(string(b), preparsedTrees[0].src)
		}
	}
	// The header counts each kind's nodes exactly.
	for k := 0; k < slabKinds; k++ {
		for _, delta := range []int{-1, 1} {
			var e treeEncoder
			tree, _ := parser.ParseWithConfig("event.a == 'x' && event.b != 'y'", sharedParseConfig())
			e.node(tree.Node)
			e.counts[k] += delta
			var b []byte
			for _, c := range e.counts {
				b = binary.AppendUvarint(b, uint64(c))
			}
			if _, ok := decodeTree(string(append(b, e.b...)), "x"); ok {
				t.Errorf("a header miscounting kind %d by %d decodes", k, delta)
			}
		}
	}
	// The header's counts, together, are bounded by the encoding's
	// length, so a short encoding cannot make many nodes.
	short := "\x00\x00\x00\x05" + string([]byte{tagNilNode, 0, 0}) + strings.Repeat("\x00", 7)
	d := treeDecoder{s: short}
	if d.slabs(); !d.bad {
		t.Errorf("a header counting 5 nodes in %d bytes is read", len(short))
	}
	d = treeDecoder{s: short + "\x00\x00\x00"}
	if d.slabs(); d.bad || len(d.strs) != 5 {
		t.Errorf("a header counting 5 nodes in %d bytes is refused", len(short)+3)
	}
	if _, ok := decodeTree(enc+"\x00", preparsedTrees[0].src); ok {
		t.Error("an encoding with a byte after its tree decodes")
	}
	deep := func(n int) string {
		return "\x00\x00\x00\x00" + strings.Repeat(string([]byte{tagUnary, 0, 0, 1, '!'}), n) + string([]byte{tagNilNode, 0, 0})
	}
	if _, ok := decodeTree(deep(DefaultMaxNodes-1), "x"); !ok {
		t.Error("a tree as deep as the parser makes does not decode")
	}
	if _, ok := decodeTree(deep(DefaultMaxNodes+1), "x"); ok {
		t.Error("a tree deeper than the parser makes decodes")
	}
}

// TestEncodingRefusesWhatItDoesNotWrite: a builtin the optimizer marked
// is not encoded (its marks would be lost), and integers keep their sign.
func TestEncodingRefusesWhatItDoesNotWrite(t *testing.T) {
	threshold := 1
	for _, n := range []*ast.BuiltinNode{{Name: "count", Throws: true}, {Name: "count", Map: &ast.NilNode{}}, {Name: "count", Threshold: &threshold}} {
		if _, ok := encodeTree(n); ok {
			t.Errorf("%+v is encoded", n)
		}
	}
	for _, v := range []int{-1, -5, 0, 7, -1 << 40} {
		enc, ok := encodeTree(&ast.IntegerNode{Value: v})
		if !ok {
			t.Fatal("an integer is not encoded")
		}
		tree, ok := decodeTree(enc, "")
		if !ok || tree.Node.(*ast.IntegerNode).Value != v {
			t.Errorf("%d rebuilds as %v", v, tree)
		}
	}
}

func FuzzPreparsedDecode(f *testing.F) {
	for _, p := range preparsedTrees[:8] {
		f.Add(p.tree)
	}
	f.Fuzz(func(t *testing.T, s string) {
		decodeTree(s, "x")
	})
}
