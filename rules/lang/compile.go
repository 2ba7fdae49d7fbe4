package lang

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
)

// Bounds on one expression. There are no loops in the language, so a
// bound on size is a bound on cost.
const (
	DefaultMaxBytes = 2048
	DefaultMaxNodes = 256
)

// Error is a compile error at a byte offset of the expression source.
type Error struct {
	Offset int // byte offset into the source
	Length int // bytes the error covers; at least 1
	Msg    string
	// Whole marks an error about the expression as a whole (its size),
	// not about one place in it.
	Whole bool
}

func (e *Error) Error() string { return e.Msg }

// Program is a compiled expression. Exactly one of B, N, S, V is set,
// according to Type: B for Bool, N for Int and Float, S for String, V for
// lists, objects and untyped members.
type Program struct {
	Type   Type
	Source string
	// Const holds the value when the expression does not depend on the
	// event or the state.
	Const *Value
	B     func(*Frame) bool
	N     func(*Frame) float64
	S     func(*Frame) string
	V     func(*Frame) Value
	// Parts are the top-level conjuncts of a boolean `a && b && …`, each
	// with its own text, so an explanation can name the first that was
	// false.
	Parts []*Program
}

// Eval returns the program's value as a Value.
func (p *Program) Eval(f *Frame) Value {
	switch {
	case p.B != nil:
		return Value{Bool: p.B(f), K: Bool}
	case p.N != nil:
		return Value{Num: p.N(f), K: p.Type}
	case p.S != nil:
		return Value{Str: p.S(f), K: String}
	}
	return p.V(f)
}

// Compile parses, type-checks and compiles src against env.
func Compile(src string, env *Env) (*Program, error) {
	if len(src) > DefaultMaxBytes {
		return nil, &Error{Length: 1, Whole: true, Msg: fmt.Sprintf("expression is %d bytes long; the limit is %d", len(src), DefaultMaxBytes)}
	}
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Length: 1, Whole: true, Msg: "expression is empty"}
	}
	cfg := config(env)
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, exprError(src, err)
	}
	c := &compiler{src: src, env: env}
	if err := c.names(tree.Node); err != nil {
		return nil, err
	}
	if _, err := checker.Check(tree, cfg); err != nil {
		return nil, exprError(src, err)
	}
	n, err := c.node(tree.Node)
	if err != nil {
		return nil, err
	}
	p := n.program(src)
	if p.Type == Bool {
		for _, part := range conjuncts(tree.Node) {
			if part == tree.Node {
				break
			}
			pn, err := c.node(part)
			if err != nil {
				return nil, err
			}
			p.Parts = append(p.Parts, pn.program(part.String()))
		}
	}
	return p, nil
}

// conjuncts flattens a chain of && into its operands, left to right.
func conjuncts(n ast.Node) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
		return append(conjuncts(b.Left), conjuncts(b.Right)...)
	}
	return []ast.Node{n}
}

// config returns the checker configuration of env, built once: the
// environment's struct type and the functions.
func config(env *Env) *conf.Config {
	if env.cfg != nil {
		return env.cfg
	}
	cfg := conf.CreateNew()
	cfg.MaxNodes = DefaultMaxNodes
	opts := []expr.Option{
		expr.Env(reflect.New(env.checkerType()).Elem().Interface()),
		expr.Function("field", func(p ...any) (any, error) { return nil, nil }, new(func(string, int) string)),
		expr.Function("nfields", func(p ...any) (any, error) { return nil, nil }, new(func(string) int)),
	}
	for _, o := range opts {
		o(cfg)
	}
	env.cfg = cfg
	return cfg
}

// exprError maps expr's error (rune offsets) to an Error with a byte
// offset into src.
func exprError(src string, err error) *Error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return &Error{Length: 1, Msg: err.Error()}
	}
	msg := fe.Message
	if msg == "" {
		msg = err.Error()
	}
	msg = strings.TrimPrefix(msg, "compilation failed: ")
	if strings.Contains(msg, "maximum allowed nodes") {
		return &Error{Length: 1, Whole: true, Msg: fmt.Sprintf("expression has more than %d syntax nodes, the limit", DefaultMaxNodes)}
	}
	return &Error{Offset: byteOffset(src, fe.From), Length: 1, Msg: msg}
}

func byteOffset(src string, runes int) int {
	i := 0
	for n := 0; n < runes && i < len(src); n++ {
		_, w := utf8.DecodeRuneInString(src[i:])
		i += w
	}
	return i
}

type compiler struct {
	src string
	env *Env
}

func (c *compiler) errAt(n ast.Node, format string, args ...any) *Error {
	loc := n.Location()
	off := byteOffset(c.src, loc.From)
	length := 1
	if loc.To > loc.From {
		length = byteOffset(c.src, loc.To) - off
	}
	return &Error{Offset: off, Length: length, Msg: fmt.Sprintf(format, args...)}
}

// names reports unknown identifiers, facts, slots, params and messages with
// messages in the policy's terms, before expr's checker would name its own
// generated types.
func (c *compiler) names(n ast.Node) error {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return c.ident(n)
	case *ast.MemberNode:
		if id, ok := n.Node.(*ast.IdentifierNode); ok && isNamespace(id.Value) {
			if err := c.namespaceAllowed(id); err != nil {
				return err
			}
			prop, ok := n.Property.(*ast.StringNode)
			if !ok {
				return c.errAt(n, "%s members are read by name, as %s.NAME", id.Value, id.Value)
			}
			return c.member(n, id.Value, prop.Value)
		}
		if err := c.names(n.Node); err != nil {
			return err
		}
		return c.names(n.Property)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			if id.Value != "field" && id.Value != "nfields" {
				return c.errAt(n, "unknown function %q", id.Value)
			}
		}
		for _, a := range n.Arguments {
			if err := c.names(a); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	for _, child := range children(n) {
		if err = c.names(child); err != nil {
			return err
		}
	}
	return nil
}

func isNamespace(s string) bool {
	return s == nsEvent || s == nsState || s == nsParam || s == nsMessage
}

func (c *compiler) namespaceAllowed(id *ast.IdentifierNode) error {
	if (id.Value == nsEvent && c.env.NoEvent) || (id.Value == nsState && c.env.NoState) {
		return c.errAt(id, "%s is not available here", id.Value)
	}
	return nil
}

func (c *compiler) ident(n *ast.IdentifierNode) error {
	if isNamespace(n.Value) {
		if err := c.namespaceAllowed(n); err != nil {
			return err
		}
		return c.errAt(n, "%s is a namespace; name a member, as %s.NAME", n.Value, n.Value)
	}
	if _, ok := c.env.top(n.Value); ok {
		return nil
	}
	var names []string
	for _, b := range c.env.Top {
		names = append(names, b.Name)
	}
	return c.errAt(n, "unknown name %q%s", n.Value, suggest(n.Value, append(names, nsEvent, nsState, nsParam, nsMessage)))
}

func (c *compiler) member(n ast.Node, ns, name string) error {
	switch ns {
	case nsEvent:
		if _, ok := c.env.field(ns, name); !ok {
			return c.errAt(n, "event %s has no fact %q%s", c.env.EventName, name, suggest(name, c.env.names(ns)))
		}
	case nsState:
		if _, ok := c.env.field(ns, name); !ok {
			return c.errAt(n, "unknown slot %q%s", name, suggest(name, c.env.names(ns)))
		}
	case nsParam:
		if _, ok := c.env.konst(ns, name); !ok {
			return c.errAt(n, "unknown param %q%s", name, suggest(name, c.env.names(ns)))
		}
	case nsMessage:
		if _, ok := c.env.konst(ns, name); !ok {
			return c.errAt(n, "unknown message %q%s", name, suggest(name, c.env.names(ns)))
		}
	}
	return nil
}

func children(n ast.Node) []ast.Node {
	switch n := n.(type) {
	case *ast.UnaryNode:
		return []ast.Node{n.Node}
	case *ast.BinaryNode:
		return []ast.Node{n.Left, n.Right}
	case *ast.ChainNode:
		return []ast.Node{n.Node}
	case *ast.MemberNode:
		return []ast.Node{n.Node, n.Property}
	case *ast.SliceNode:
		out := []ast.Node{n.Node}
		if n.From != nil {
			out = append(out, n.From)
		}
		if n.To != nil {
			out = append(out, n.To)
		}
		return out
	case *ast.CallNode:
		return append([]ast.Node{n.Callee}, n.Arguments...)
	case *ast.BuiltinNode:
		return n.Arguments
	case *ast.ConditionalNode:
		return []ast.Node{n.Cond, n.Exp1, n.Exp2}
	case *ast.ArrayNode:
		return n.Nodes
	case *ast.SequenceNode:
		return n.Nodes
	case *ast.VariableDeclaratorNode:
		return []ast.Node{n.Value, n.Expr}
	case *ast.PredicateNode:
		return []ast.Node{n.Node}
	case *ast.MapNode:
		return n.Pairs
	case *ast.PairNode:
		return []ast.Node{n.Key, n.Value}
	}
	return nil
}

// Suggest returns `; did you mean "x"?` for the closest of names, when one
// is within two edits, and "" otherwise. Every "unknown name" message of the
// language uses it.
func Suggest(name string, names []string) string { return suggest(name, names) }

func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// cnode is a compiled node: its type, the enum its value comes from (for
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
	b   func(*Frame) bool
	n   func(*Frame) float64
	s   func(*Frame) string
	v   func(*Frame) Value
}

func (n cnode) program(src string) *Program {
	return &Program{Type: n.t, Source: src, Const: n.k, B: n.b, N: n.n, S: n.s, V: n.v}
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
// it may sit on a side of && || ?: that never runs.
func fold(n cnode, inputs ...cnode) (cnode, error) {
	for _, in := range inputs {
		if in.k == nil {
			return n, nil
		}
	}
	var f Frame
	v := n.program("").Eval(&f)
	if f.Err != nil {
		return n, nil
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
		p := b.Prog
		out := cnode{t: p.Type, k: p.Const, b: p.B, n: p.N, s: p.S, v: p.V}
		return out, nil
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
		case nsEvent, nsState:
			f, _ := c.env.field(id.Value, name)
			out := fieldReader(id.Value == nsEvent, f)
			out.ref = &fieldRef{event: id.Value == nsEvent, index: f.Index}
			if len(f.Enum) > 0 {
				out.enum, out.what = f.Enum, id.Value+"."+name
				i := f.Index
				if id.Value == nsEvent {
					out.code = func(fr *Frame) float64 { return fr.Event[i].Num }
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
		get, at, src := base.v, idx.n, n.String()
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
			return fold(out, base, idx)
		}
		out := cnode{t: String, s: func(f *Frame) string {
			l := get(f).StrList()
			if i := pos(f, len(l)); i >= 0 {
				return l[i]
			}
			return ""
		}}
		return fold(out, base, idx)
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
		return f.Event
	}
	return f.State
}

func fieldReader(event bool, f *Field) cnode {
	i := f.Index
	out := cnode{t: f.Type}
	if event {
		switch f.Type {
		case Bool:
			out.b = func(fr *Frame) bool { return fr.Event[i].Bool }
		case Int, Float:
			out.n = func(fr *Frame) float64 { return fr.Event[i].Num }
		case String:
			out.s = func(fr *Frame) string { return fr.Event[i].Str }
		default:
			out.v = func(fr *Frame) Value { v := fr.Event[i]; v.K = Object; return v }
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
		b := x.b
		return fold(cnode{t: Bool, b: func(f *Frame) bool { return !b(f) }}, x)
	case "-":
		if !x.t.Numeric() {
			return cnode{}, c.errAt(n, "- needs a number, not %s", x.t)
		}
		v := x.n
		return fold(cnode{t: x.t, n: func(f *Frame) float64 { return -v(f) }}, x)
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

func (c *compiler) builtin(name string, n ast.Node, args []ast.Node) (cnode, error) {
	xs := make([]cnode, len(args))
	for i, a := range args {
		x, err := c.node(a)
		if err != nil {
			return cnode{}, err
		}
		xs[i] = x
	}
	want := func(count int, types ...Type) error {
		if len(xs) != count {
			return c.errAt(n, "%s takes %d argument(s)", name, count)
		}
		for i, t := range types {
			if t == Float && xs[i].t.Numeric() {
				continue
			}
			if xs[i].t != t {
				return c.errAt(args[i], "%s: argument %d must be %s, not %s", name, i+1, t, xs[i].t)
			}
		}
		return nil
	}
	var out cnode
	switch name {
	case "len":
		if len(xs) != 1 {
			return cnode{}, c.errAt(n, "len takes 1 argument")
		}
		x := xs[0]
		switch x.t {
		case String:
			s := x.s
			out = cnode{t: Int, n: func(f *Frame) float64 { return float64(len(s(f))) }}
		case ListNum, ListStr:
			v := x.v
			out = cnode{t: Int, n: func(f *Frame) float64 { l := v(f); return float64(len(l.NumList()) + len(l.StrList())) }}
		default:
			return cnode{}, c.errAt(args[0], "len needs a string or a list, not %s", x.t)
		}
	case "abs":
		if err := want(1, Float); err != nil {
			return cnode{}, err
		}
		x := xs[0].n
		out = cnode{t: xs[0].t, n: func(f *Frame) float64 { return math.Abs(x(f)) }}
	case "min", "max":
		if len(xs) < 1 {
			return cnode{}, c.errAt(n, "%s needs at least one argument", name)
		}
		t := Int
		fns := make([]func(*Frame) float64, len(xs))
		for i, x := range xs {
			if !x.t.Numeric() {
				return cnode{}, c.errAt(args[i], "%s takes numbers, not %s", name, x.t)
			}
			if x.t == Float {
				t = Float
			}
			fns[i] = x.n
		}
		isMin := name == "min"
		out = cnode{t: t, n: func(f *Frame) float64 {
			r := fns[0](f)
			for _, g := range fns[1:] {
				if v := g(f); (isMin && v < r) || (!isMin && v > r) {
					r = v
				}
			}
			return r
		}}
	case "int", "float":
		if len(xs) != 1 {
			return cnode{}, c.errAt(n, "%s takes 1 argument", name)
		}
		x, src := xs[0], args[0].String()
		t := Int
		if name == "float" {
			t = Float
		}
		switch {
		case x.t.Numeric():
			g := x.n
			if t == Int {
				out = cnode{t: t, n: func(f *Frame) float64 { return math.Trunc(g(f)) }}
			} else {
				out = cnode{t: t, n: g}
			}
		case x.t == String:
			s := x.s
			out = cnode{t: t, n: func(f *Frame) float64 {
				str := strings.TrimSpace(s(f))
				v, err := strconv.ParseFloat(str, 64)
				if err != nil || (t == Int && v != math.Trunc(v)) {
					f.fail("%s(%s): %q is not a number", name, src, str)
					return 0
				}
				return v
			}}
		default:
			return cnode{}, c.errAt(args[0], "%s needs a number or a string, not %s", name, x.t)
		}
	case "string":
		if len(xs) != 1 {
			return cnode{}, c.errAt(n, "string takes 1 argument")
		}
		x := xs[0]
		switch {
		case x.t == String:
			out = x
		case x.t.Numeric():
			g := x.n
			out = cnode{t: String, s: func(f *Frame) string { return FormatNum(g(f)) }}
		case x.t == Bool:
			g := x.b
			out = cnode{t: String, s: func(f *Frame) string { return strconv.FormatBool(g(f)) }}
		default:
			return cnode{}, c.errAt(args[0], "string needs a scalar, not %s", x.t)
		}
	case "lower", "upper", "trim":
		if err := want(1, String); err != nil {
			return cnode{}, err
		}
		g := xs[0].s
		fn := map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper, "trim": strings.TrimSpace}[name]
		out = cnode{t: String, s: func(f *Frame) string { return fn(g(f)) }}
	case "field":
		if err := want(2, String, Int); err != nil {
			return cnode{}, err
		}
		s, i := xs[0].s, xs[1].n
		out = cnode{t: String, s: func(f *Frame) string { return field(s(f), int(i(f))) }}
	case "nfields":
		if err := want(1, String); err != nil {
			return cnode{}, err
		}
		s := xs[0].s
		out = cnode{t: Int, n: func(f *Frame) float64 { return float64(nfields(s(f))) }}
	default:
		return cnode{}, c.errAt(n, "function %s is not available in policy expressions", name)
	}
	return fold(out, xs...)
}

// field returns the i-th whitespace-separated word of s without allocating.
func field(s string, i int) string {
	n := 0
	for start := 0; start < len(s); {
		for start < len(s) && isSpace(s[start]) {
			start++
		}
		if start == len(s) {
			break
		}
		end := start
		for end < len(s) && !isSpace(s[end]) {
			end++
		}
		if n == i {
			return s[start:end]
		}
		n++
		start = end
	}
	return ""
}

func nfields(s string) int {
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		n++
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
	}
	return n
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// Constant returns a program that always gives v.
func Constant(t Type, v Value) *Program {
	return constant(t, v).program(FormatValue(t, v))
}

// FormatValue prints a value for explanations and messages.
func FormatValue(t Type, v Value) string {
	switch t {
	case Bool:
		return strconv.FormatBool(v.Bool)
	case Int, Float:
		return FormatNum(v.Num)
	case String:
		return strconv.Quote(v.Str)
	}
	return fmt.Sprint(v.Interface(t))
}
