package hcltree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// MaxDepth bounds the nesting of blocks and expressions Decode rebuilds:
// an encoding deeper than this is refused, however it was made.
const MaxDepth = 1024

// ErrOtherSource is Decode's error for an encoding made from other bytes
// than the ones given: the file changed since its tree was encoded.
var ErrOtherSource = errors.New("hcltree: the encoding is of another version of the file")

// Decode rebuilds the syntax tree Encode wrote for src, with every range
// in filename. It fails, never panics, on an encoding that is not one
// of src's. Top-level blocks of the types omit names are left out of the
// tree unread: a policy loaded to decide with reads no property or verify
// block, which are a fifth of the default's text.
func Decode(enc, src []byte, filename string, omit ...string) (*hcl.File, error) {
	return decode(enc, src, string(enc), string(src), filename, omit)
}

// DecodeStatic is Decode for bytes nothing writes while the tree lives,
// as the binary's own data: the tree's names and literals point into
// them instead of into copies (a built-in's text and tree are 99 KB to
// copy at every start of the process Pi spawns).
func DecodeStatic(enc, src []byte, filename string, omit ...string) (*hcl.File, error) {
	return decode(enc, src, unsafe.String(unsafe.SliceData(enc), len(enc)), unsafe.String(unsafe.SliceData(src), len(src)), filename, omit)
}

// decode is Decode with encs and srcs the strings of enc and src.
func decode(enc, src []byte, encs, srcs string, filename string, omit []string) (*hcl.File, error) {
	if !bytes.HasPrefix(enc, []byte(magic)) {
		return nil, errors.New("hcltree: not an encoded syntax tree")
	}
	size, n := binary.Uvarint(enc[len(magic):])
	off := len(magic) + n
	if n <= 0 || len(enc) < off+8 {
		return nil, errors.New("hcltree: not an encoded syntax tree")
	}
	if size != uint64(len(src)) || binary.LittleEndian.Uint64(enc[off:]) != digest(src) {
		return nil, ErrOtherSource
	}
	// One string holds every name and literal of the encoding, and one the
	// source, so a decoded string costs no allocation of its own.
	d := &decoder{enc: encs, src: srcs, filename: filename, off: off + 8, omit: omit}
	names := d.count()
	if d.err == nil {
		d.table = make([]string, 0, max(names-1, 0))
		for i := 0; i < names-1 && d.err == nil; i++ {
			d.table = append(d.table, d.str())
		}
	}
	body := d.body(0)
	if d.err == nil && d.off != len(d.enc) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return &hcl.File{Body: body, Bytes: src}, nil
}

type decoder struct {
	enc, src string
	filename string
	off      int
	prev     hcl.Pos
	table    []string
	err      error
	nodes    nodes
	omit     []string
}

// nodes are the decoder's slabs, one per kind of node and list it makes.
type nodes struct {
	bodies      slab[hclsyntax.Body]
	attrs       slab[hclsyntax.Attribute]
	blocks      slab[hclsyntax.Block]
	blockLists  slab[*hclsyntax.Block]
	labels      slab[string]
	labelRanges slab[hcl.Range]
	exprLists   slab[hclsyntax.Expression]
	templates   slab[hclsyntax.TemplateExpr]
	literals    slab[hclsyntax.LiteralValueExpr]
	traversals  slab[hclsyntax.ScopeTraversalExpr]
	steps       slab[hcl.Traverser]
	objects     slab[hclsyntax.ObjectConsExpr]
	items       slab[hclsyntax.ObjectConsItem]
	keys        slab[hclsyntax.ObjectConsKeyExpr]
	tuples      slab[hclsyntax.TupleConsExpr]
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("hcltree: at byte %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uint() int {
	// Most numbers are one byte (line deltas, columns, short lengths):
	// read those in place, small enough to be inlined.
	if d.off < len(d.enc) && d.err == nil {
		if c := d.enc[d.off]; c < 0x80 {
			d.off++
			return int(c)
		}
	}
	return d.uintLong()
}

// uintLong reads a number of more than one byte, or fails.
func (d *decoder) uintLong() int {
	if d.err != nil {
		return 0
	}
	var v uint64
	var shift uint
	for i := 0; ; i++ {
		if d.off >= len(d.enc) || i == binary.MaxVarintLen64 {
			d.fail("truncated number")
			return 0
		}
		c := d.enc[d.off]
		d.off++
		if c < 0x80 {
			v |= uint64(c) << shift
			break
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	if v > 1<<40 {
		d.fail("number %d past any size a file has", v)
		return 0
	}
	return int(v)
}

func (d *decoder) int() int { return unzigzag(d.uint()) }

// unzigzag is the signed number encoder.int wrote as u.
func unzigzag(u int) int {
	if u&1 != 0 {
		return -(u >> 1) - 1
	}
	return u >> 1
}

// count reads what encoder.count wrote: 0 for nil, n+1 for n items. n
// may not exceed the bytes left, as every item takes one at least.
func (d *decoder) count() int {
	n := d.uint()
	if n-1 > len(d.enc)-d.off {
		d.fail("count %d past the end", n-1)
		return 0
	}
	return n
}

func (d *decoder) str() string {
	n := d.uint()
	if n > len(d.enc)-d.off {
		d.fail("string past the end")
		return ""
	}
	s := d.enc[d.off : d.off+n]
	d.off += n
	return s
}

func (d *decoder) name() string {
	i := d.uint()
	if i >= len(d.table) {
		d.fail("name %d not in the table", i)
		return ""
	}
	return d.table[i]
}

// peekName is the name name would read next, without reading it.
func (d *decoder) peekName() string {
	off := d.off
	s := d.name()
	d.off = off
	return s
}

func (d *decoder) rng() hcl.Range {
	// A range is six numbers, most often a byte each: those six are read
	// at once, where six calls of uint, too large to inline, were a
	// twentieth of serve's start.
	var n [6]int
	if off, enc := d.off, d.enc; d.err == nil && off+6 <= len(enc) && (enc[off]|enc[off+1]|enc[off+2]|enc[off+3]|enc[off+4]|enc[off+5])&0x80 == 0 {
		n = [6]int{int(enc[off]), int(enc[off+1]), int(enc[off+2]), int(enc[off+3]), int(enc[off+4]), int(enc[off+5])}
		d.off += 6
	} else {
		for i := range n {
			n[i] = d.uint()
		}
	}
	var s, t hcl.Pos
	s.Line = d.prev.Line + unzigzag(n[0])
	s.Column = n[1]
	s.Byte = d.prev.Byte + unzigzag(n[2])
	t.Line = s.Line + n[3]
	t.Column = n[4]
	t.Byte = s.Byte + n[5]
	if d.err == nil && (s.Line < 1 || s.Column < 1 || t.Column < 1 || s.Byte < 0 || t.Byte > len(d.src)) {
		d.fail("range %v outside the source", hcl.Range{Start: s, End: t})
	}
	d.prev = s
	return hcl.Range{Filename: d.filename, Start: s, End: t}
}

func (d *decoder) deep(depth int) bool {
	if depth > MaxDepth {
		d.fail("nested deeper than %d", MaxDepth)
		return true
	}
	return d.err != nil
}

func (d *decoder) body(depth int) *hclsyntax.Body {
	b := d.nodes.bodies.one()
	if d.deep(depth) {
		return b
	}
	b.SrcRange = d.rng()
	b.EndRange = d.rng()
	if n := d.count(); n > 0 {
		b.Attributes = make(hclsyntax.Attributes, n-1)
		for i := 0; i < n-1 && d.err == nil; i++ {
			a := d.nodes.attrs.one()
			a.Name = d.name()
			a.SrcRange, a.NameRange, a.EqualsRange = d.rng(), d.rng(), d.rng()
			a.Expr = d.expr(depth + 1)
			b.Attributes[a.Name] = a
		}
	}
	if n := d.count(); n > 0 {
		b.Blocks = d.nodes.blockLists.take(n - 1)[:0]
		for i := 0; i < n-1 && d.err == nil; i++ {
			end := -1
			if depth == 0 {
				// A top-level block: its length, then ranges from the
				// file's start (Encode's body).
				end = d.uint()
				if end > len(d.enc)-d.off {
					d.fail("a block of %d bytes past the end", end)
					break
				}
				end += d.off
				d.prev = hcl.Pos{}
				if len(d.omit) > 0 && slices.Contains(d.omit, d.peekName()) {
					d.off = end
					continue
				}
			}
			bl := d.nodes.blocks.one()
			bl.Type = d.name()
			if n := d.count(); n > 0 {
				bl.Labels = d.nodes.labels.take(n - 1)
				for j := range bl.Labels {
					bl.Labels[j] = d.name()
				}
			}
			nr := d.count()
			bl.TypeRange, bl.OpenBraceRange, bl.CloseBraceRange = d.rng(), d.rng(), d.rng()
			if nr > 0 {
				bl.LabelRanges = d.nodes.labelRanges.take(nr - 1)
				for j := range bl.LabelRanges {
					bl.LabelRanges[j] = d.rng()
				}
			}
			bl.Body = d.body(depth + 1)
			if end >= 0 && d.err == nil && d.off != end {
				d.fail("a block ends at byte %d, its length says %d", d.off, end)
			}
			b.Blocks = append(b.Blocks, bl)
		}
	}
	return b
}

func (d *decoder) exprs(depth int) []hclsyntax.Expression {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := d.nodes.exprLists.take(n - 1)
	for i := range out {
		out[i] = d.expr(depth + 1)
	}
	return out
}

func (d *decoder) expr(depth int) hclsyntax.Expression {
	if d.deep(depth) {
		return nil
	}
	switch tag := d.uint(); tag {
	case tagRaw:
		r := d.rng()
		if d.err != nil {
			return nil
		}
		x, diags := hclsyntax.ParseExpression([]byte(d.src[r.Start.Byte:r.End.Byte]), d.filename, r.Start)
		if diags.HasErrors() {
			d.fail("the expression at %s does not parse: %s", r, diags.Error())
		}
		return x
	case tagLiteral:
		return d.literal()
	case tagTemplate:
		x := d.nodes.templates.one()
		x.Parts = d.exprs(depth)
		x.SrcRange = d.rng()
		return x
	case tagTraversal:
		x := d.nodes.traversals.one()
		if n := d.count(); n > 0 {
			x.Traversal = d.nodes.steps.take(n - 1)
			for i := range x.Traversal {
				step, name := d.uint(), d.name()
				r := d.rng()
				switch {
				case step == stepRoot && i == 0:
					x.Traversal[i] = hcl.TraverseRoot{Name: name, SrcRange: r}
				case step == stepAttr && i > 0:
					x.Traversal[i] = hcl.TraverseAttr{Name: name, SrcRange: r}
				default:
					d.fail("traversal step %d out of place", step)
				}
			}
		}
		x.SrcRange = d.rng()
		return x
	case tagObject:
		x := d.nodes.objects.one()
		if n := d.count(); n > 0 {
			x.Items = d.nodes.items.take(n - 1)
			for i := range x.Items {
				x.Items[i].KeyExpr = d.expr(depth + 1)
				x.Items[i].ValueExpr = d.expr(depth + 1)
			}
		}
		x.SrcRange, x.OpenRange = d.rng(), d.rng()
		return x
	case tagObjectKey:
		var force bool
		switch f := d.uint(); f {
		case 0:
		case 1:
			force = true
		default:
			d.fail("key flag %d is neither 0 nor 1", f)
		}
		x := d.nodes.keys.one()
		x.ForceNonLiteral, x.Wrapped = force, d.expr(depth+1)
		return x
	case tagTuple:
		x := d.nodes.tuples.one()
		x.Exprs = d.exprs(depth)
		x.SrcRange, x.OpenRange = d.rng(), d.rng()
		return x
	default:
		d.fail("unknown expression tag %d", tag)
		return nil
	}
}

func (d *decoder) literal() hclsyntax.Expression {
	kind := d.uint()
	var s string
	if kind == litString {
		s = d.str()
	}
	r := d.rng()
	if d.err != nil {
		return nil
	}
	var v cty.Value
	switch kind {
	case litSource:
		v = cty.StringVal(d.src[r.Start.Byte:r.End.Byte])
	case litString:
		v = cty.StringVal(s)
	case litNumber:
		n, err := cty.ParseNumberVal(d.src[r.Start.Byte:r.End.Byte])
		if err != nil {
			d.fail("the number at %s: %v", r, err)
			return nil
		}
		v = n
	case litTrue:
		v = cty.True
	case litFalse:
		v = cty.False
	case litNull:
		v = cty.NullVal(cty.DynamicPseudoType)
	default:
		d.fail("unknown literal kind %d", kind)
		return nil
	}
	x := d.nodes.literals.one()
	x.Val, x.SrcRange = v, r
	return x
}
