package hcltree_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

func parse(t testing.TB, src []byte, name string) *hcl.File {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f
}

// roundTrip encodes src's tree, decodes it and requires the tree the
// parser makes, field for field.
func roundTrip(t *testing.T, src []byte, name string) []byte {
	t.Helper()
	want := parse(t, src, name)
	enc, err := hcltree.Encode(want, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := hcltree.Decode(enc, src, name)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Body, want.Body) {
		t.Fatalf("%s: the decoded tree differs from the parsed one", name)
	}
	if !bytes.Equal(got.Bytes, src) {
		t.Fatalf("%s: the decoded file's bytes are not its source", name)
	}
	return enc
}

func TestBuiltinsDecodeToTheParsedTree(t *testing.T) {
	for _, n := range policies.Names() {
		src, _ := policies.Source(n)
		enc := roundTrip(t, src.Bytes, src.Name)
		t.Logf("%s: %d bytes of source, %d encoded", n, len(src.Bytes), len(enc))
	}
}

// Every expression kind HCL has, most of them written as raw ranges and
// parsed again: the decoded tree is still the parser's.
const everyKind = `
a = 1
b = -2.5e3
c = "plain"
d = "esc\"aped\n ünï"
e = "${x} and %{ if y }z%{ endif }"
f = <<EOT
  heredoc ${x}
EOT
g = [1, "two", true, false, null, [], {}]
h = { k = 1, "q" = 2, (x) = 3, a.b = 4 }
i = x.y.z
j = x[0].y[*].z
k = f(1, x...)
l = x ? 1 : 2
m = [for v in xs : v if v > 0]
n = { for k, v in m : k => v... }
o = !x && y || z == 1 + 2 * 3 % 4
p = "${x}"
q = (1)
r = upper("x")

block "one" "two" {
  inner {
    deep = x
  }
}
empty {}
`

func TestEveryExpressionKindRoundTrips(t *testing.T) {
	roundTrip(t, []byte(everyKind), "every.hcl")
	roundTrip(t, []byte(""), "empty.hcl")
	roundTrip(t, []byte("# only a comment\n"), "comment.hcl")
}

// TestLargeRangeNumbersRoundTrip: each of a range's six numbers can take
// more than one byte (a column past 127, a line 64 or more below the last
// range, a byte delta or a length past 127), alone or together.
func TestLargeRangeNumbersRoundTrip(t *testing.T) {
	pad := strings.Repeat(" ", 140)
	long := `"` + strings.Repeat("x", 200) + `"`
	cases := map[string]string{
		"column":       pad + "a = 1\n",
		"start column": pad + "x {\n}\n", // the end, on the next line, is column 2
		"end column":   "a = " + long + "\n",
		"line delta":   "a = 1\n" + strings.Repeat("\n", 70) + "b = 2\n",
		"line upward":  "x {\n" + strings.Repeat("\n", 70) + "  y = 1\n}\nz = 2\n",
		"byte delta":   "a = 1\n" + strings.Repeat("# comment\n", 20) + "b = 2\n",
		"lines inside": "a = <<EOT\n" + strings.Repeat("line\n", 70) + "EOT\n",
		"every one":    strings.Repeat("\n", 70) + pad + "a = " + long + "\n" + strings.Repeat("\n", 70) + pad + "b = " + long + "\n",
	}
	for name, src := range cases {
		roundTrip(t, []byte(src), name+".hcl")
	}
}

func TestAnotherSourceIsRefused(t *testing.T) {
	src := []byte(everyKind)
	enc, err := hcltree.Encode(parse(t, src, "x.hcl"), src)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Replace(src, []byte("a = 1"), []byte("a = 7"), 1)
	if _, err := hcltree.Decode(enc, other, "x.hcl"); !errors.Is(err, hcltree.ErrOtherSource) {
		t.Fatalf("decoding against another source: %v, want ErrOtherSource", err)
	}
}

// Every cut and every flipped byte of a real encoding decodes to an error
// or a tree, never a panic, and a cut one never decodes.
func TestDamagedEncodingsFailCleanly(t *testing.T) {
	src := []byte(everyKind)
	enc, err := hcltree.Encode(parse(t, src, "x.hcl"), src)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(enc); n++ {
		if _, err := hcltree.Decode(enc[:n], src, "x.hcl"); err == nil {
			t.Fatalf("an encoding cut to %d of %d bytes decoded", n, len(enc))
		}
	}
	for i := 0; i < len(enc); i++ {
		for _, b := range []byte{0x00, 0x7f, 0x80, 0xff} {
			bad := bytes.Clone(enc)
			bad[i] = b
			hcltree.Decode(bad, src, "x.hcl")
		}
	}
}

func TestNestingPastTheBoundIsRefused(t *testing.T) {
	depth := hcltree.MaxDepth + 1
	src := []byte("a = " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n")
	f := parse(t, src, "deep.hcl")
	enc, err := hcltree.Encode(f, src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hcltree.Decode(enc, src, "deep.hcl"); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("a tree %d deep: %v, want refused for its depth", depth, err)
	}
	ok := hcltree.MaxDepth - 2 // the attribute's expression sits one below the body
	src = []byte("a = " + strings.Repeat("[", ok) + strings.Repeat("]", ok) + "\n")
	roundTrip(t, src, "ok.hcl")
}

// withoutTop is f's body with its top-level blocks of the given types
// taken out, as Decode with omit should give it.
func withoutTop(f *hcl.File, types ...string) *hclsyntax.Body {
	b := *f.Body.(*hclsyntax.Body)
	var kept hclsyntax.Blocks
	for _, bl := range b.Blocks {
		skip := false
		for _, t := range types {
			skip = skip || bl.Type == t
		}
		if !skip {
			kept = append(kept, bl)
		}
	}
	b.Blocks = kept
	return &b
}

// TestOmittedBlocksAreLeftOut: with omit, the tree is the parser's less
// the top-level blocks of those types, and only those: a nested block of
// the same type stays, and so does every range after an omitted block.
func TestOmittedBlocksAreLeftOut(t *testing.T) {
	const nested = `
property "first" {
  always = "x"
}
group "g" {
  property "inner" {
    kept = true
  }
}
verify "v" {
  depth = 3
}
rule_after "r" {
  on = "request"
}
property "last" {}
`
	sources := map[string][]byte{"nested.hcl": []byte(nested)}
	for _, n := range policies.Names() {
		src, _ := policies.Source(n)
		sources[src.Name] = src.Bytes
	}
	for name, src := range sources {
		want := parse(t, src, name)
		enc, err := hcltree.Encode(want, src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hcltree.Decode(enc, src, name, "property", "verify")
		if err != nil {
			t.Fatal(err)
		}
		wantBody := withoutTop(want, "property", "verify")
		if len(wantBody.Blocks) == len(want.Body.(*hclsyntax.Body).Blocks) {
			t.Fatalf("%s has no property or verify block to omit", name)
		}
		if wantBody.Blocks == nil {
			wantBody.Blocks = hclsyntax.Blocks{}
		}
		if !reflect.DeepEqual(got.Body, wantBody) {
			t.Fatalf("%s: the tree decoded without property and verify blocks is not the parsed one less those blocks", name)
		}
		// Omitting nothing is the whole tree.
		all, err := hcltree.Decode(enc, src, name, "no_such_block")
		if err != nil || !reflect.DeepEqual(all.Body, want.Body) {
			t.Fatalf("%s: omitting a type the file lacks changed the tree (%v)", name, err)
		}
	}
	f, _ := hcltree.Decode(mustEncode(t, nested), []byte(nested), "nested.hcl", "property")
	inner := f.Body.(*hclsyntax.Body).Blocks
	if len(inner) != 3 || inner[0].Type != "group" || len(inner[0].Body.Blocks) != 1 || inner[0].Body.Blocks[0].Type != "property" {
		t.Fatalf("the nested property block was omitted too: %d top-level blocks", len(inner))
	}
}

func mustEncode(t *testing.T, src string) []byte {
	t.Helper()
	enc, err := hcltree.Encode(parse(t, []byte(src), "x.hcl"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestOmittingAllocatesLess pins what omitting is for: the default,
// rebuilt without its property and verify blocks, allocates less.
func TestOmittingAllocatesLess(t *testing.T) {
	src, _ := policies.Source(policies.Default)
	whole := testing.AllocsPerRun(5, func() { hcltree.Decode(src.Tree, src.Bytes, src.Name) })
	less := testing.AllocsPerRun(5, func() { hcltree.Decode(src.Tree, src.Bytes, src.Name, "property", "verify") })
	if less > 0.9*whole {
		t.Fatalf("without properties %v allocations, whole %v: the blocks were read anyway", less, whole)
	}
}

// DecodeStatic makes Decode's tree with its strings in the bytes given,
// which Decode copies first.
func TestDecodeStaticSharesTheBytes(t *testing.T) {
	src := []byte(everyKind)
	enc, err := hcltree.Encode(parse(t, src, "x.hcl"), src)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := hcltree.Decode(enc, src, "x.hcl")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := hcltree.DecodeStatic(enc, src, "x.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shared.Body, copied.Body) {
		t.Fatal("DecodeStatic's tree differs from Decode's")
	}
	within := func(s string, b []byte) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return p >= lo && p < lo+uintptr(len(b))
	}
	blocks := func(f *hcl.File) []*hclsyntax.Block { return f.Body.(*hclsyntax.Body).Blocks }
	if len(blocks(shared)) == 0 {
		t.Fatal("no block to look at")
	}
	if name := blocks(shared)[0].Type; !within(name, enc) {
		t.Errorf("DecodeStatic's block type %q is a copy", name)
	}
	if name := blocks(copied)[0].Type; within(name, enc) {
		t.Errorf("Decode's block type %q points into the bytes given", name)
	}
}

// EncodeSource is Encode of the parser's tree, and refuses what does not
// parse.
func TestEncodeSourceIsEncodeOfTheParse(t *testing.T) {
	src := []byte(everyKind)
	want, err := hcltree.Encode(parse(t, src, "x.hcl"), src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := hcltree.EncodeSource(src, "x.hcl")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("EncodeSource: %v, equal %v", err, bytes.Equal(got, want))
	}
	if _, err := hcltree.EncodeSource([]byte("a = {\n"), "x.hcl"); err == nil || !strings.Contains(err.Error(), "x.hcl:") {
		t.Fatalf("a file that does not parse: %v", err)
	}
}
