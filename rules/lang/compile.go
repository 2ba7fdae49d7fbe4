package lang

import (
	"errors"
	"fmt"
	"reflect"
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

	comparison func() *Comparison // see Comparison
	named      *Program           // see Named
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
		p.comparison, p.named = c.lazyComparison(tree.Node), c.named(tree.Node)
		for _, part := range conjuncts(tree.Node) {
			if part == tree.Node {
				break
			}
			pn, err := c.node(part)
			if err != nil {
				return nil, err
			}
			pp := pn.program(part.String())
			pp.comparison, pp.named = c.lazyComparison(part), c.named(part)
			p.Parts = append(p.Parts, pp)
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
