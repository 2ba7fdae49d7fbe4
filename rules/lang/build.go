package lang

import (
	"errors"
	"fmt"

	"github.com/expr-lang/expr/ast"
)

// literal checks), a constant if it has one, and one closure.
type cnode struct {
	t    Type
	enum []string
	what string // what the enum value is, for messages: "event.outcome"
	k    *Value
	// code reads an enum field's index, for comparisons without strings.
	code func(*Frame) float64
	// ref is set when the node reads one fact or slot, so an operator can
	// read it in place instead of calling the node's closure.
	ref *fieldRef
	lit *Lit // see Program.Lit
	// bits is set when the node is a conjunction of bool facts and their
	// negations (see BitTest), so && of two such nodes is one mask test.
	bits *BitTest
	// lin is set when the node is a number read in place from event facts
	// (see linear), so a comparison of two such numbers is one closure.
	lin *linear
	// steps are the conjuncts of an && chain, the chains of derived values
	// computed in place opened up (see Program.Steps).
	steps []Step
	b     func(*Frame) bool
	n     func(*Frame) float64
	s     func(*Frame) string
	v     func(*Frame) Value
}

func (n cnode) program(src string) *Program {
	return &Program{Type: n.t, Source: src, Const: n.k, B: n.b, N: n.n, S: n.s, V: n.v, Lit: n.lit, Bits: n.bits, Steps: n.steps, lin: n.lin}
}

func constant(t Type, v Value) cnode {
	c := cnode{t: t, k: &v}
	switch t {
	case Bool:
		b := v.Bool
		c.b = func(*Frame) bool { return b }
	case Int, Float:
		x := v.Num
		c.n = func(*Frame) float64 { return x }
	case String:
		s := v.Str
		c.s = func(*Frame) string { return s }
	default:
		c.v = func(*Frame) Value { return v }
	}
	return c
}

// fold turns n into a constant when every input is constant. A constant
// that cannot be computed (an index out of range) stays a runtime check:
// it may sit on a side of && || ?: that never runs. A constant over a
// size bound is an error: the policy could never use it.
func (c *compiler) fold(n cnode, inputs ...cnode) (cnode, error) {
	for _, in := range inputs {
		if in.k == nil {
			return n, nil
		}
	}
	var f Frame
	v := n.program("").Eval(&f)
	var be *BoundError
	if errors.As(f.Err, &be) {
		return n, be
	}
	if f.Err != nil {
		return n, nil
	}
	if n.t == String {
		if c.env.Folded == nil {
			c.env.Folded = new(int)
		}
		if *c.env.Folded += len(v.Str); *c.env.Folded > MaxFoldedBytes {
			return n, &BoundError{Msg: fmt.Sprintf("the policy's constant strings exceed %d MiB once folded", MaxFoldedBytes>>20)}
		}
	}
	out := constant(n.t, v)
	out.enum, out.what = n.enum, n.what
	return out, nil
}

func (c *compiler) node(n ast.Node) (cnode, error) {
	out, err := c.build(n)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return out, e
		}
		return out, c.errAt(n, "%v", err)
	}
	return out, nil
}

func (c *compiler) build(n ast.Node) (cnode, error) {
	switch n := n.(type) {
	case *ast.NilNode:
		return constant(Any, Value{}), nil
	case *ast.IntegerNode:
		return constant(Int, Value{Num: float64(n.Value)}), nil
	case *ast.FloatNode:
		return constant(Float, Value{Num: n.Value}), nil
	case *ast.BoolNode:
		return constant(Bool, Value{Bool: n.Value}), nil
	case *ast.StringNode:
		return constant(String, Value{Str: n.Value}), nil
	case *ast.ConstantNode:
		return cnode{}, c.errAt(n, "constant %v is not supported in policy expressions", n.Value)
	case *ast.IdentifierNode:
		b, _ := c.env.top(n.Value)
		return memoised(b), nil
	case *ast.ChainNode:
		return c.node(n.Node)
	case *ast.MemberNode:
		return c.memberNode(n)
	case *ast.UnaryNode:
		return c.unary(n)
	case *ast.BinaryNode:
		return c.binary(n)
	case *ast.ConditionalNode:
		return c.conditional(n)
	case *ast.BuiltinNode:
		return c.builtin(n.Name, n, n.Arguments)
	case *ast.CallNode:
		id, _ := n.Callee.(*ast.IdentifierNode)
		if id == nil {
			return cnode{}, c.errAt(n, "only functions may be called")
		}
		return c.builtin(id.Value, n, n.Arguments)
	case *ast.ArrayNode:
		return c.array(n)
	}
	return cnode{}, c.errAt(n, "%s is not supported in policy expressions", describe(n))
}

func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.PredicateNode, *ast.PointerNode:
		return "a predicate (closure)"
	case *ast.MapNode, *ast.PairNode:
		return "a map literal"
	case *ast.SliceNode:
		return "slicing"
	case *ast.VariableDeclaratorNode:
		return "let"
	case *ast.SequenceNode:
		return "a sequence (;)"
	}
	return fmt.Sprintf("%T", n)
}

func (c *compiler) memberNode(n *ast.MemberNode) (cnode, error) {
	if id, ok := n.Node.(*ast.IdentifierNode); ok && isNamespace(id.Value) {
		name := n.Property.(*ast.StringNode).Value
		switch id.Value {
		case nsEvent, nsState, nsScope:
			// A scope's values are read from the frame's State, after the
			// policy's slots.
			f, _ := c.env.field(id.Value, name)
			out := fieldReader(id.Value == nsEvent, f)
			out.ref = &fieldRef{event: id.Value == nsEvent, index: f.Index}
			if len(f.Enum) > 0 {
				out.enum, out.what = f.Enum, id.Value+"."+name
				i := f.Index
				if id.Value == nsEvent && codeReadable(i, len(f.Enum)) {
					sh := uint(4 * i)
					out.code = func(fr *Frame) float64 { return float64(fr.Codes >> sh & 15) }
				} else if id.Value == nsEvent {
					out.code = func(fr *Frame) float64 { return fr.Facts[i].Num }
				} else {
					out.code = func(fr *Frame) float64 { return fr.State[i].Num }
				}
			}
			return out, nil
		default:
			k, _ := c.env.konst(id.Value, name)
			return constant(k.Type, k.Value), nil
		}
	}
	base, err := c.node(n.Node)
	if err != nil {
		return cnode{}, err
	}
	switch base.t {
	case Object, Any:
		prop, ok := n.Property.(*ast.StringNode)
		if !ok {
			return cnode{}, c.errAt(n.Property, "object members are read by name")
		}
		name, get := prop.Value, base.v
		return cnode{t: Any, v: func(f *Frame) Value {
			o := get(f).Object()
			if o == nil {
				return Value{}
			}
			return dyn(o[name])
		}}, nil
	case ListNum, ListStr:
		idx, err := c.node(n.Property)
		if err != nil {
			return cnode{}, err
		}
		if idx.t != Int {
			return cnode{}, c.errAt(n.Property, "a list index must be an int, not %s", idx.t)
		}
		get, at, src := base.v, idx.n, n
		pos := func(f *Frame, l int) int {
			i := int(at(f))
			if i < 0 {
				i += l
			}
			if i < 0 || i >= l {
				f.fail("%s: index %d out of range (length %d)", src, int(at(f)), l)
				return -1
			}
			return i
		}
		if base.t == ListNum {
			out := cnode{t: Float, n: func(f *Frame) float64 {
				l := get(f).NumList()
				if i := pos(f, len(l)); i >= 0 {
					return l[i]
				}
				return 0
			}}
			return c.fold(out, base, idx)
		}
		out := cnode{t: String, s: func(f *Frame) string {
			l := get(f).StrList()
			if i := pos(f, len(l)); i >= 0 {
				return l[i]
			}
			return ""
		}}
		return c.fold(out, base, idx)
	}
	return cnode{}, c.errAt(n, "%s has no members", base.t)
}

// fieldRef names a fact (event) or a slot (state) by index.
type fieldRef struct {
	event bool
	index int
}

// values returns the frame's facts or slots.
func (r *fieldRef) values(f *Frame) []Value {
	if r.event {
		return f.Facts
	}
	return f.State
}

// bitNode tests bool facts in the frame's Bits, reading no fact.
func bitNode(t BitTest) cnode {
	m, w := t.Mask, t.Want
	return cnode{t: Bool, bits: &t, b: func(f *Frame) bool { return f.Bits&m == w }}
}

func fieldReader(event bool, f *Field) cnode {
	i := f.Index
	out := cnode{t: f.Type}
	if event {
		switch f.Type {
		case Bool:
			if i < MaxBitFacts {
				return bitNode(BitTest{Mask: 1 << uint(i), Want: 1 << uint(i)})
			}
			out.b = func(fr *Frame) bool { return fr.Facts[i].Bool }
		case Int, Float:
			out.n = func(fr *Frame) float64 { return fr.Facts[i].Num }
			out.lin = factTerm(i)
		case String:
			out.s = func(fr *Frame) string { return fr.Facts[i].Str }
		default:
			out.v = func(fr *Frame) Value { v := fr.Facts[i]; v.K = Object; return v }
		}
		return out
	}
	switch f.Type {
	case Bool:
		out.b = func(fr *Frame) bool { return fr.State[i].Bool }
	case Int, Float:
		out.n = func(fr *Frame) float64 { return fr.State[i].Num }
	case String:
		if enum := f.Enum; len(enum) > 0 {
			// An enum slot holds its index; the string is the policy's.
			out.s = func(fr *Frame) string { return enum[int(fr.State[i].Num)] }
			break
		}
		out.s = func(fr *Frame) string { return fr.State[i].Str }
	default:
		out.v = func(fr *Frame) Value { return fr.State[i] }
	}
	return out
}

func (c *compiler) unary(n *ast.UnaryNode) (cnode, error) {
	x, err := c.node(n.Node)
	if err != nil {
		return cnode{}, err
	}
	switch n.Operator {
	case "!", "not":
		if x.t != Bool {
			return cnode{}, c.errAt(n, "%s needs a bool, not %s", n.Operator, x.t)
		}
		if r := x.ref; r != nil {
			// One closure reads the fact or slot and negates it.
			i := r.index
			if r.event {
				if i < MaxBitFacts {
					return bitNode(BitTest{Mask: 1 << uint(i)}), nil
				}
				return cnode{t: Bool, b: func(f *Frame) bool { return !f.Facts[i].Bool }}, nil
			}
			return cnode{t: Bool, b: func(f *Frame) bool { return !f.State[i].Bool }}, nil
		}
		b := x.b
		return c.fold(cnode{t: Bool, b: func(f *Frame) bool { return !b(f) }}, x)
	case "-":
		if !x.t.Numeric() {
			return cnode{}, c.errAt(n, "- needs a number, not %s", x.t)
		}
		v := x.n
		return c.fold(cnode{t: x.t, n: func(f *Frame) float64 { return -v(f) }}, x)
	case "+":
		return x, nil
	}
	return cnode{}, c.errAt(n, "operator %s is not supported", n.Operator)
}

func (c *compiler) conditional(n *ast.ConditionalNode) (cnode, error) {
	cond, err := c.node(n.Cond)
	if err != nil {
		return cnode{}, err
	}
	a, err := c.node(n.Exp1)
	if err != nil {
		return cnode{}, err
	}
	b, err := c.node(n.Exp2)
	if err != nil {
		return cnode{}, err
	}
	if cond.t != Bool {
		return cnode{}, c.errAt(n.Cond, "a condition must be bool, not %s", cond.t)
	}
	t, ok := unify(a.t, b.t)
	if !ok {
		return cnode{}, c.errAt(n, "both branches must have one type, not %s and %s", a.t, b.t)
	}
	if cond.k != nil {
		if cond.k.Bool {
			return a, nil
		}
		return b, nil
	}
	cb := cond.b
	out := cnode{t: t}
	switch {
	case t == Bool:
		x, y := a.b, b.b
		out.b = func(f *Frame) bool {
			if cb(f) {
				return x(f)
			}
			return y(f)
		}
	case t.Numeric():
		x, y := a.n, b.n
		out.n = func(f *Frame) float64 {
			if cb(f) {
				return x(f)
			}
			return y(f)
		}
	case t == String:
		x, y := a.s, b.s
		out.s = func(f *Frame) string {
			if cb(f) {
				return x(f)
			}
			return y(f)
		}
	default:
		x, y := asValue(a), asValue(b)
		out.v = func(f *Frame) Value {
			if cb(f) {
				return x(f)
			}
			return y(f)
		}
	}
	return out, nil
}

func unify(a, b Type) (Type, bool) {
	switch {
	case a == b:
		return a, true
	case a.Numeric() && b.Numeric():
		return Float, true
	}
	return Invalid, false
}

// asValue returns a closure giving n's value with its kind set.
func asValue(n cnode) func(*Frame) Value {
	switch {
	case n.b != nil:
		b := n.b
		return func(f *Frame) Value { return Value{Bool: b(f), K: Bool} }
	case n.n != nil:
		x, t := n.n, n.t
		return func(f *Frame) Value { return Value{Num: x(f), K: t} }
	case n.s != nil:
		s := n.s
		return func(f *Frame) Value { return Value{Str: s(f), K: String} }
	}
	return n.v
}

func (c *compiler) array(n *ast.ArrayNode) (cnode, error) {
	var nums []float64
	var strs []string
	t := Invalid
	for _, e := range n.Nodes {
		x, err := c.node(e)
		if err != nil {
			return cnode{}, err
		}
		if x.k == nil {
			return cnode{}, c.errAt(e, "list elements must be constants")
		}
		switch {
		case x.t.Numeric() && (t == Invalid || t == ListNum):
			t, nums = ListNum, append(nums, x.k.Num)
		case x.t == String && (t == Invalid || t == ListStr):
			t, strs = ListStr, append(strs, x.k.Str)
		default:
			return cnode{}, c.errAt(e, "a list holds numbers or strings of one kind")
		}
	}
	if t == Invalid {
		t = ListStr
	}
	if t == ListNum {
		return constant(t, Value{X: nums}), nil
	}
	return constant(t, Value{X: strs}), nil
}

// memoised reads a bound name. A derived value with a memo slot is
// computed once per event and kept in the frame, so a chain of derived
// values that read each other twice costs the sum of its parts, not 2^n.
func memoised(b *Binding) cnode {
	p := b.Prog
	out := cnode{t: p.Type, k: p.Const, b: p.B, n: p.N, s: p.S, v: p.V}
	if p.Const != nil || b.Memo <= 0 {
		// A value computed where it is read is its expression: what lets
		// an operator read the expression in place holds for it too.
		out.bits, out.lin, out.steps = p.Bits, p.lin, p.Steps
		return out
	}
	i := b.Memo - 1
	switch {
	case p.B != nil:
		g := p.B
		out.b = func(f *Frame) bool {
			if i >= len(f.Memo) {
				return g(f)
			}
			if m := &f.Memo[i]; m.gen == f.gen {
				return m.b
			}
			if f.Err != nil {
				return false // the event is rejected: compute nothing more
			}
			v := g(f)
			if f.Err == nil {
				m := &f.Memo[i]
				m.b, m.gen = v, f.gen
			}
			return v
		}
	case p.N != nil:
		g := p.N
		out.n = func(f *Frame) float64 {
			if i >= len(f.Memo) {
				return g(f)
			}
			if m := &f.Memo[i]; m.gen == f.gen {
				return m.n
			}
			if f.Err != nil {
				return 0 // the event is rejected: compute nothing more
			}
			v := g(f)
			if f.Err == nil {
				m := &f.Memo[i]
				m.n, m.gen = v, f.gen
			}
			return v
		}
	case p.S != nil:
		g := p.S
		out.s = func(f *Frame) string {
			if i >= len(f.Memo) {
				return g(f)
			}
			if m := &f.Memo[i]; m.gen == f.gen {
				return m.s
			}
			if f.Err != nil {
				return "" // the event is rejected: compute nothing more
			}
			v := g(f)
			if f.Err == nil {
				m := &f.Memo[i]
				m.s, m.gen = v, f.gen
			}
			return v
		}
	}
	return out
}
