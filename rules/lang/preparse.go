package lang

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
)

// The built-ins' expressions are parsed when the binary is built, too:
// expr's parser took 18,000 instructions an expression, 1.1 M of serve's
// start for the default's 62. A prechecked expression (one the table
// holds, in an environment that names no builtin, which parses under the
// shared configuration) is rebuilt from its encoded tree (preparsed, in
// prechecked_gen.go) instead; TestPreparsedIsParsed requires every tree of
// the table to rebuild as the parser builds it, node for node and
// location for location. A tree of a node kind the encoding lacks is left
// out of the table, and its expression parsed.

// Node tags of the encoding. A node is its tag, its location's two
// offsets (uvarint), then its fields in the order of the ast type's
// declaration: a string as its length (uvarint) and bytes, an int as a
// varint, a bool as a byte, a float as its 8 bytes, a child as a node, a
// list of children as their count and the nodes.
const (
	tagNil byte = iota
	tagNilNode
	tagIdentifier
	tagInteger
	tagFloat
	tagBool
	tagString
	tagUnary
	tagBinary
	tagChain
	tagMember
	tagCall
	tagBuiltin
	tagConditional
	tagArray
)

// preparsedTree is one expression of the table and its encoded tree.
type preparsedTree struct {
	src, tree string
}

// preparsed rebuilds src's tree from the table, or reports false.
func preparsed(src string) (*parser.Tree, bool) {
	i := sort.Search(len(preparsedTrees), func(i int) bool { return preparsedTrees[i].src >= src })
	if i == len(preparsedTrees) || preparsedTrees[i].src != src {
		return nil, false
	}
	return decodeTree(preparsedTrees[i].tree, src)
}

// decodeTree rebuilds src's tree from its encoding enc, or reports false
// when enc is not one tree's encoding.
func decodeTree(enc, src string) (*parser.Tree, bool) {
	d := treeDecoder{s: enc}
	d.slabs()
	n := d.node(0)
	if d.bad || d.i != len(d.s) || n == nil || len(d.bins)+len(d.mems)+len(d.ids)+len(d.strs) > 0 {
		return nil, false
	}
	return &parser.Tree{Node: n, Source: file.NewSource(src)}, true
}

// encodeTree writes n's tree, or reports false for a node kind the
// encoding lacks or a field it does not write (a builtin the optimizer
// folded).
func encodeTree(n ast.Node) (string, bool) {
	var e treeEncoder
	e.node(n)
	head := make([]byte, 0, len(e.b)+8)
	for _, c := range e.counts {
		head = binary.AppendUvarint(head, uint64(c))
	}
	return string(append(head, e.b...)), !e.bad
}

// The encoding starts with the number of nodes of each of the four
// commonest kinds, so that a tree's nodes of a kind are made in one
// allocation (rebuilding the default's trees made 1,500 of one node each).
const (
	slabBinary = iota
	slabMember
	slabIdentifier
	slabString
	slabKinds
)

type treeEncoder struct {
	b      []byte
	bad    bool
	counts [slabKinds]int
}

func (e *treeEncoder) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *treeEncoder) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *treeEncoder) nodes(ns []ast.Node) {
	e.b = binary.AppendUvarint(e.b, uint64(len(ns)))
	for _, n := range ns {
		e.node(n)
	}
}

func (e *treeEncoder) head(tag byte, n ast.Node) {
	loc := n.Location()
	if loc.From < 0 || loc.To < 0 {
		e.bad = true
	}
	e.b = append(e.b, tag)
	e.b = binary.AppendUvarint(e.b, uint64(loc.From))
	e.b = binary.AppendUvarint(e.b, uint64(loc.To))
}

func (e *treeEncoder) node(n ast.Node) {
	switch n := n.(type) {
	case nil:
		e.b = append(e.b, tagNil)
	case *ast.NilNode:
		e.head(tagNilNode, n)
	case *ast.IdentifierNode:
		e.head(tagIdentifier, n)
		e.counts[slabIdentifier]++
		e.str(n.Value)
	case *ast.IntegerNode:
		e.head(tagInteger, n)
		e.b = binary.AppendVarint(e.b, int64(n.Value))
	case *ast.FloatNode:
		e.head(tagFloat, n)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(n.Value))
	case *ast.BoolNode:
		e.head(tagBool, n)
		e.flag(n.Value)
	case *ast.StringNode:
		e.head(tagString, n)
		e.counts[slabString]++
		e.str(n.Value)
	case *ast.UnaryNode:
		e.head(tagUnary, n)
		e.str(n.Operator)
		e.node(n.Node)
	case *ast.BinaryNode:
		e.head(tagBinary, n)
		e.counts[slabBinary]++
		e.str(n.Operator)
		e.node(n.Left)
		e.node(n.Right)
	case *ast.ChainNode:
		e.head(tagChain, n)
		e.node(n.Node)
	case *ast.MemberNode:
		e.head(tagMember, n)
		e.counts[slabMember]++
		e.node(n.Node)
		e.node(n.Property)
		e.flag(n.Optional)
		e.flag(n.Method)
	case *ast.CallNode:
		e.head(tagCall, n)
		e.node(n.Callee)
		e.nodes(n.Arguments)
	case *ast.BuiltinNode:
		if n.Throws || n.Map != nil || n.Threshold != nil {
			e.bad = true
		}
		e.head(tagBuiltin, n)
		e.str(n.Name)
		e.nodes(n.Arguments)
	case *ast.ConditionalNode:
		e.head(tagConditional, n)
		e.flag(n.Ternary)
		e.node(n.Cond)
		e.node(n.Exp1)
		e.node(n.Exp2)
	case *ast.ArrayNode:
		e.head(tagArray, n)
		e.nodes(n.Nodes)
	default:
		e.bad = true
	}
}

// treeDecoder reads an encoded tree; bad is set at anything it cannot
// read, and the tree is then not used. Its depth is bounded as the
// parser's node count bounds a parsed tree's.
type treeDecoder struct {
	s   string
	i   int
	bad bool
	// The nodes of the four commonest kinds, made together and handed
	// out in turn; a tree with more or fewer of a kind than its header
	// says is bad.
	bins []ast.BinaryNode
	mems []ast.MemberNode
	ids  []ast.IdentifierNode
	strs []ast.StringNode
}

// slabs reads the header and makes the nodes it counts. Every node takes
// at least three bytes (its tag and its location), which bounds the
// counts, together, by a third of the encoding's length.
func (d *treeDecoder) slabs() {
	var n [slabKinds]int
	total := uint64(0)
	for k := range n {
		c := d.uvarint()
		if total += c; d.bad || c > uint64(len(d.s)) || total > uint64(len(d.s)/3) {
			d.bad = true
			return
		}
		n[k] = int(c)
	}
	d.bins = make([]ast.BinaryNode, n[slabBinary])
	d.mems = make([]ast.MemberNode, n[slabMember])
	d.ids = make([]ast.IdentifierNode, n[slabIdentifier])
	d.strs = make([]ast.StringNode, n[slabString])
}

// take hands out the next node of a slab, or sets bad when it is empty.
func take[T any](d *treeDecoder, slab *[]T) *T {
	if len(*slab) == 0 {
		d.bad = true
		return new(T)
	}
	x := &(*slab)[0]
	*slab = (*slab)[1:]
	return x
}

func (d *treeDecoder) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if d.i >= len(d.s) {
			break
		}
		c := d.s[d.i]
		d.i++
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

func (d *treeDecoder) int() int {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return int(v)
}

func (d *treeDecoder) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.i) {
		d.bad = true
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *treeDecoder) flag() bool {
	if d.i >= len(d.s) || d.s[d.i] > 1 {
		d.bad = true
		return false
	}
	d.i++
	return d.s[d.i-1] == 1
}

func (d *treeDecoder) nodes(depth int) []ast.Node {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.i) {
		// Every node takes at least a byte.
		d.bad = true
		return nil
	}
	out := make([]ast.Node, n)
	for k := range out {
		out[k] = d.node(depth)
	}
	return out
}

func (d *treeDecoder) node(depth int) ast.Node {
	if d.bad || d.i >= len(d.s) || depth > DefaultMaxNodes {
		d.bad = true
		return nil
	}
	tag := d.s[d.i]
	d.i++
	if tag == tagNil {
		return nil
	}
	loc := file.Location{From: int(d.uvarint()), To: int(d.uvarint())}
	depth++
	var n ast.Node
	switch tag {
	case tagNilNode:
		n = &ast.NilNode{}
	case tagIdentifier:
		x := take(d, &d.ids)
		x.Value = d.str()
		n = x
	case tagInteger:
		n = &ast.IntegerNode{Value: d.int()}
	case tagFloat:
		if len(d.s)-d.i < 8 {
			d.bad = true
			return nil
		}
		n = &ast.FloatNode{Value: math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.s[d.i : d.i+8])))}
		d.i += 8
	case tagBool:
		n = &ast.BoolNode{Value: d.flag()}
	case tagString:
		x := take(d, &d.strs)
		x.Value = d.str()
		n = x
	case tagUnary:
		x := &ast.UnaryNode{Operator: d.str()}
		x.Node = d.node(depth)
		n = x
	case tagBinary:
		x := take(d, &d.bins)
		x.Operator = d.str()
		x.Left = d.node(depth)
		x.Right = d.node(depth)
		n = x
	case tagChain:
		n = &ast.ChainNode{Node: d.node(depth)}
	case tagMember:
		x := take(d, &d.mems)
		x.Node = d.node(depth)
		x.Property = d.node(depth)
		x.Optional = d.flag()
		x.Method = d.flag()
		n = x
	case tagCall:
		x := &ast.CallNode{Callee: d.node(depth)}
		x.Arguments = d.nodes(depth)
		n = x
	case tagBuiltin:
		x := &ast.BuiltinNode{Name: d.str()}
		x.Arguments = d.nodes(depth)
		n = x
	case tagConditional:
		x := &ast.ConditionalNode{Ternary: d.flag()}
		x.Cond = d.node(depth)
		x.Exp1 = d.node(depth)
		x.Exp2 = d.node(depth)
		n = x
	case tagArray:
		n = &ast.ArrayNode{Nodes: d.nodes(depth)}
	default:
		d.bad = true
		return nil
	}
	n.SetLocation(loc)
	return n
}
