package hcltree

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sort"

	"github.com/cespare/xxhash/v2"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// magic starts every encoding; the digit is the format's version.
const magic = "HCLT4"

// digest checks that an encoding is of the bytes given: with their
// length, a 64-bit hash tells an edited file from the one encoded (an
// edit passes only with odds of one in 2^64). The file is ours, so nobody
// forges one to match, and a hash made for speed will do: XXH64 reads the
// default's 49 KB in 35 k instructions, where CRC-64 took 215 k of the
// start of the process Pi spawns (docs/performance.md, Start-up).
func digest(src []byte) uint64 { return xxhash.Sum64(src) }

// Expression tags.
const (
	tagRaw       = iota + 1 // the source range, parsed again on decode
	tagLiteral              // a literal value: one of the lit* kinds follows
	tagTemplate             // TemplateExpr
	tagTraversal            // ScopeTraversalExpr of root and attribute steps
	tagObject               // ObjectConsExpr
	tagObjectKey            // ObjectConsKeyExpr
	tagTuple                // TupleConsExpr
)

// Literal kinds.
const (
	litSource = iota + 1 // a string equal to the source bytes of its range
	litString            // a string given in full
	litNumber            // a number: its source bytes, parsed as HCL does
	litTrue              // true
	litFalse             // false
	litNull              // null
)

// Traversal steps.
const (
	stepRoot = iota + 1
	stepAttr
)

// Encode encodes the syntax tree of a native HCL file parsed from src. It
// fails on a tree it cannot represent (one not made by hclsyntax).
func Encode(file *hcl.File, src []byte) ([]byte, error) {
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return nil, fmt.Errorf("hcltree: not a native syntax body: %T", file.Body)
	}
	e := &encoder{src: src, strs: map[string]int{}}
	if err := e.body(body, 0); err != nil {
		return nil, err
	}
	out := binary.AppendUvarint([]byte(magic), uint64(len(src)))
	out = binary.LittleEndian.AppendUint64(out, digest(src))
	out = binary.AppendUvarint(out, uint64(len(e.table)+1)) // as count writes it
	for _, s := range e.table {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, e.buf...), nil
}

type encoder struct {
	src   []byte
	buf   []byte
	prev  hcl.Pos // the start of the range written last: ranges are deltas
	strs  map[string]int
	table []string
}

func (e *encoder) uint(n int) { e.buf = binary.AppendUvarint(e.buf, uint64(n)) }
func (e *encoder) int(n int)  { e.buf = binary.AppendVarint(e.buf, int64(n)) }

// count writes a slice's length, 0 for nil and n+1 otherwise, so that the
// decoded tree keeps nil and empty apart as the parser made them.
func (e *encoder) count(n int, isNil bool) {
	if isNil {
		e.uint(0)
		return
	}
	e.uint(n + 1)
}

// name writes a string through the table of names.
func (e *encoder) name(s string) {
	i, ok := e.strs[s]
	if !ok {
		i = len(e.table)
		e.strs[s] = i
		e.table = append(e.table, s)
	}
	e.uint(i)
}

func (e *encoder) rng(r hcl.Range) error {
	s, t := r.Start, r.End
	if t.Byte < s.Byte || t.Line < s.Line || t.Byte > len(e.src) || s.Line < 1 || s.Column < 1 || t.Column < 1 {
		return fmt.Errorf("hcltree: range %s out of order or outside the source", r)
	}
	e.int(s.Line - e.prev.Line)
	e.uint(s.Column)
	e.int(s.Byte - e.prev.Byte)
	e.uint(t.Line - s.Line)
	e.uint(t.Column)
	e.uint(t.Byte - s.Byte)
	e.prev = s
	return nil
}

// body writes b. At the top (depth 0) each block is preceded by its
// length in bytes, and the ranges within it are written from the file's
// start rather than from the range before it, so that Decode can pass over
// a block it is asked to omit without reading it.
func (e *encoder) body(b *hclsyntax.Body, depth int) error {
	attrs := make([]*hclsyntax.Attribute, 0, len(b.Attributes))
	for _, a := range b.Attributes {
		attrs = append(attrs, a)
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	if err := e.rng(b.SrcRange); err != nil {
		return err
	}
	if err := e.rng(b.EndRange); err != nil {
		return err
	}
	e.count(len(attrs), b.Attributes == nil)
	for _, a := range attrs {
		e.name(a.Name)
		for _, r := range []hcl.Range{a.SrcRange, a.NameRange, a.EqualsRange} {
			if err := e.rng(r); err != nil {
				return err
			}
		}
		if err := e.expr(a.Expr); err != nil {
			return err
		}
	}
	e.count(len(b.Blocks), b.Blocks == nil)
	for _, bl := range b.Blocks {
		if depth > 0 {
			if err := e.block(bl, depth); err != nil {
				return err
			}
			continue
		}
		e.prev = hcl.Pos{}
		start := len(e.buf)
		if err := e.block(bl, depth); err != nil {
			return err
		}
		enc := append([]byte(nil), e.buf[start:]...)
		e.buf = append(binary.AppendUvarint(e.buf[:start], uint64(len(enc))), enc...)
	}
	return nil
}

func (e *encoder) block(bl *hclsyntax.Block, depth int) error {
	e.name(bl.Type)
	e.count(len(bl.Labels), bl.Labels == nil)
	for _, l := range bl.Labels {
		e.name(l)
	}
	e.count(len(bl.LabelRanges), bl.LabelRanges == nil)
	for _, r := range append([]hcl.Range{bl.TypeRange, bl.OpenBraceRange, bl.CloseBraceRange}, bl.LabelRanges...) {
		if err := e.rng(r); err != nil {
			return err
		}
	}
	if bl.Body == nil {
		return fmt.Errorf("hcltree: block %q at %s has no body", bl.Type, bl.TypeRange)
	}
	return e.body(bl.Body, depth+1)
}

func (e *encoder) expr(x hclsyntax.Expression) error {
	switch x := x.(type) {
	case *hclsyntax.LiteralValueExpr:
		if kind, ok := e.literalKind(x); ok {
			e.uint(tagLiteral)
			e.uint(kind)
			if kind == litString {
				s := x.Val.AsString()
				e.uint(len(s))
				e.buf = append(e.buf, s...)
			}
			return e.rng(x.SrcRange)
		}
	case *hclsyntax.TemplateExpr:
		if !e.partsOK(x.Parts) {
			break // a directive's range is not an expression: all of it raw
		}
		e.uint(tagTemplate)
		e.count(len(x.Parts), x.Parts == nil)
		for _, p := range x.Parts {
			if err := e.expr(p); err != nil {
				return err
			}
		}
		return e.rng(x.SrcRange)
	case *hclsyntax.ScopeTraversalExpr:
		if plainTraversal(x.Traversal) {
			e.uint(tagTraversal)
			e.count(len(x.Traversal), x.Traversal == nil)
			for _, st := range x.Traversal {
				var err error
				switch st := st.(type) {
				case hcl.TraverseRoot:
					e.uint(stepRoot)
					e.name(st.Name)
					err = e.rng(st.SrcRange)
				case hcl.TraverseAttr:
					e.uint(stepAttr)
					e.name(st.Name)
					err = e.rng(st.SrcRange)
				}
				if err != nil {
					return err
				}
			}
			return e.rng(x.SrcRange)
		}
	case *hclsyntax.ObjectConsExpr:
		e.uint(tagObject)
		e.count(len(x.Items), x.Items == nil)
		for _, it := range x.Items {
			if err := e.expr(it.KeyExpr); err != nil {
				return err
			}
			if err := e.expr(it.ValueExpr); err != nil {
				return err
			}
		}
		if err := e.rng(x.SrcRange); err != nil {
			return err
		}
		return e.rng(x.OpenRange)
	case *hclsyntax.ObjectConsKeyExpr:
		e.uint(tagObjectKey)
		if x.ForceNonLiteral {
			e.uint(1)
		} else {
			e.uint(0)
		}
		return e.expr(x.Wrapped)
	case *hclsyntax.TupleConsExpr:
		e.uint(tagTuple)
		e.count(len(x.Exprs), x.Exprs == nil)
		for _, it := range x.Exprs {
			if err := e.expr(it); err != nil {
				return err
			}
		}
		if err := e.rng(x.SrcRange); err != nil {
			return err
		}
		return e.rng(x.OpenRange)
	case nil:
		return fmt.Errorf("hcltree: missing expression")
	}
	// Any other kind is parsed again from its text on decode, which must
	// give it back exactly.
	if !e.rawOK(x) {
		return fmt.Errorf("hcltree: the expression at %s does not parse back from its text alone", x.Range())
	}
	e.uint(tagRaw)
	return e.rng(x.Range())
}

// rawOK reports whether parsing x's source range alone gives x back.
func (e *encoder) rawOK(x hclsyntax.Expression) bool {
	r := x.Range()
	if r.Start.Byte < 0 || r.End.Byte > len(e.src) || r.Start.Byte > r.End.Byte {
		return false
	}
	y, diags := hclsyntax.ParseExpression(e.src[r.Start.Byte:r.End.Byte], r.Filename, r.Start)
	return !diags.HasErrors() && reflect.DeepEqual(x, y)
}

// partsOK reports whether a template's parts can each be written: the
// literals and expressions of its text and interpolations can, the
// directives (%{ if }, %{ for }) only as the whole template.
func (e *encoder) partsOK(parts []hclsyntax.Expression) bool {
	for _, p := range parts {
		if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok {
			if _, ok := e.literalKind(lit); ok {
				continue
			}
		}
		switch p.(type) {
		case *hclsyntax.TemplateExpr, *hclsyntax.ScopeTraversalExpr, *hclsyntax.ObjectConsExpr, *hclsyntax.TupleConsExpr:
			continue
		}
		if !e.rawOK(p) {
			return false
		}
	}
	return true
}

// literalKind says how a literal is written, or false when it is a value
// the kinds do not cover (it then goes raw).
func (e *encoder) literalKind(x *hclsyntax.LiteralValueExpr) (int, bool) {
	v, r := x.Val, x.SrcRange
	switch {
	case v.IsNull():
		if v.Type() == cty.DynamicPseudoType {
			return litNull, true
		}
	case !v.IsKnown() || v.IsMarked():
	case v.Type() == cty.String:
		if r.End.Byte <= len(e.src) && string(e.src[r.Start.Byte:r.End.Byte]) == v.AsString() {
			return litSource, true
		}
		return litString, true
	case v.Type() == cty.Number:
		if r.End.Byte <= len(e.src) {
			if n, err := cty.ParseNumberVal(string(e.src[r.Start.Byte:r.End.Byte])); err == nil && n.RawEquals(v) {
				return litNumber, true
			}
		}
	case v.Type() == cty.Bool:
		if v.True() {
			return litTrue, true
		}
		return litFalse, true
	}
	return 0, false
}

// plainTraversal reports whether a traversal is a root and attribute
// steps only (`event.name`): the only steps written out.
func plainTraversal(t hcl.Traversal) bool {
	for i, st := range t {
		switch st.(type) {
		case hcl.TraverseRoot:
			if i != 0 {
				return false
			}
		case hcl.TraverseAttr:
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// EncodeSource parses src as native syntax and encodes its tree, as the
// built-ins' trees are made.
func EncodeSource(src []byte, filename string) ([]byte, error) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	return Encode(file, src)
}
