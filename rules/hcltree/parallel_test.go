package hcltree

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// decodeBoth decodes enc with the top-level blocks read apart (two
// decoders, whatever the size) and in turn (one), and requires the same
// tree or the same error of both.
func decodeBoth(t *testing.T, what string, enc, src []byte, omit ...string) (*hcl.File, error) {
	t.Helper()
	defer func(was int) { parallelMin = was }(parallelMin)
	parallelMin = 0
	apart, errApart := Decode(enc, src, "x.hcl", omit...)
	parallelMin = math.MaxInt
	inTurn, errInTurn := Decode(enc, src, "x.hcl", omit...)
	if fmt.Sprint(errApart) != fmt.Sprint(errInTurn) {
		t.Fatalf("%s: read apart: %v; in turn: %v", what, errApart, errInTurn)
	}
	if errInTurn == nil && !reflect.DeepEqual(apart.Body, inTurn.Body) {
		t.Fatalf("%s: the blocks read apart make another tree", what)
	}
	return inTurn, errInTurn
}

const severalBlocks = `a = 1
block "one" {
  x = "text ${a}"
  inner {
    y = [1, 2, 3]
  }
}
property "p" {
  z = { k = "v" }
}
block "two" "labels" {
  w = a.b[0]
}
verify {
  depth = 4
}
block "three" {
  v = true
}
`

// The top-level blocks read by two decoders make the tree, and meet the
// errors, one decoder reading them in turn does: for every built-in, with
// and without the blocks a load to decide with omits, and for every cut
// and flipped byte of a file of several blocks.
func TestTopLevelReadApartIsReadInTurn(t *testing.T) {
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		src, err := os.ReadFile("../../policies/" + name + ".hcl")
		if err != nil {
			t.Fatal(err)
		}
		enc, err := os.ReadFile("../../policies/" + name + ".hcl.tree")
		if err != nil {
			t.Fatal(err)
		}
		if len(enc) < parallelMin {
			t.Errorf("%s: a %d-byte tree is read in turn (parallelMin %d)", name, len(enc), parallelMin)
		}
		for _, omit := range [][]string{nil, {"property", "verify"}} {
			f, err := decodeBoth(t, name, enc, src, omit...)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(f.Body.(*hclsyntax.Body).Blocks); n < 3 {
				t.Fatalf("%s: %d top-level blocks", name, n)
			}
		}
	}
	src := []byte(severalBlocks)
	file, diags := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	enc, err := Encode(file, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, omit := range [][]string{nil, {"property", "verify"}, {"block"}} {
		if _, err := decodeBoth(t, "several blocks", enc, src, omit...); err != nil {
			t.Fatal(err)
		}
	}
	for n := 0; n < len(enc); n++ {
		decodeBoth(t, fmt.Sprintf("cut to %d bytes", n), enc[:n], src)
	}
	for i := 0; i < len(enc); i++ {
		// Small values hit the name table's end, and the others a
		// number's continuation bits.
		for _, b := range append([]byte{0x7f, 0x80, 0xff}, smallBytes...) {
			bad := bytes.Clone(enc)
			bad[i] = b
			decodeBoth(t, fmt.Sprintf("byte %d set to %#x", i, b), bad, src, "property")
		}
	}
}

var smallBytes = func() []byte {
	var out []byte
	for b := 0; b <= 24; b++ {
		out = append(out, byte(b))
	}
	return out
}()

// Two top-level blocks are the fewest read apart; with one, or with
// every other omitted, there is nothing to share.
func TestTopLevelReadApartNeedsTwoBlocks(t *testing.T) {
	defer func(was int) { parallelMin = was }(parallelMin)
	parallelMin = 0
	for _, c := range []struct {
		src  string
		omit []string
		want bool
	}{
		{"a {\n}\nb {\n}\n", nil, true},
		{"a {\n}\n", nil, false},
		{"a {\n}\nb {\n}\n", []string{"b"}, false},
	} {
		src := []byte(c.src)
		file, _ := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
		enc, err := Encode(file, src)
		if err != nil {
			t.Fatal(err)
		}
		d := &decoder{enc: string(enc), src: c.src, filename: "x.hcl", omit: c.omit}
		size, k := uvarint(d.enc, len(magic))
		if k <= 0 || size != len(src) {
			t.Fatal("header")
		}
		d.off = len(magic) + k + 8
		names := d.count()
		for i := 0; i < names-1; i++ {
			d.table = append(d.table, d.str())
		}
		d.rng()
		d.rng()
		d.count() // no attributes
		n := d.count()
		if _, ok := d.topLevel(n - 1); ok != c.want {
			t.Errorf("%q omitting %v: read apart %v, want %v", strings.TrimSpace(c.src), c.omit, ok, c.want)
		}
	}
}

func TestUvarintReadsAsUint(t *testing.T) {
	for _, enc := range []string{"\x00", "\x7f", "\x80\x01", "\xff\xff\x03", "\x80", "\xff\xff\xff\xff\xff\xff\x7f", "\x81\x80\x80\x80\x80\x20", "\x80\x80\x80\x80\x80\x20", ""} {
		d := &decoder{enc: enc}
		want := d.uint()
		got, n := uvarint(enc, 0)
		if (d.err != nil) != (n <= 0) || (d.err == nil && (got != want || n != d.off)) {
			t.Errorf("%q: uvarint %d (%d bytes), uint %d (%d bytes, %v)", enc, got, n, want, d.off, d.err)
		}
	}
}
