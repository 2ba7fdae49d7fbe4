package lang

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
)

// Bounds on one expression's source. They bound the number of operations
// an expression runs (there are no loops), but not its cost: an operation
// on strings costs their length, and an expression may name derived values
// that name others. The cost bounds are the next three.
const (
	DefaultMaxBytes = 2048
	DefaultMaxNodes = 256
)

// Cost bounds. A derived value is computed at most once per event (see
// Frame.Memo), so a chain of derived values costs the sum of its parts.
// Every string an expression builds is at most MaxValueBytes long, checked
// before it is built; the string work of one decision (bytes built or
// scanned by +, lower, upper, trim, field, nfields, contains, startsWith,
// endsWith, matches) is at most MaxWorkBytes; the constants folded while
// loading one policy hold at most MaxFoldedBytes of strings. Everything
// else (numbers, bools, reads of facts and slots, string equality, which
// reads at most MaxValueBytes) costs a step per syntax node.
const (
	MaxValueBytes  = 1 << 20
	MaxWorkBytes   = 16 << 20
	MaxFoldedBytes = 16 << 20
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
	// Lit is set when the program is `event.FACT == 'literal'`, so a rule
	// index can dispatch on the fact instead of testing it rule by rule.
	Lit *Lit
	// Bits is set when the program is a conjunction of bool facts and their
	// negations, so a caller can fuse it with its neighbours.
	Bits *BitTest
	// Weight is the number of syntax nodes the program runs, counting the
	// derived values it computes inline (see InlineWeight).
	Weight int
	// Parts are the top-level conjuncts of a boolean `a && b && …`, each
	// with its own text, so an explanation can name the first that was
	// false.
	Parts []*Program
	// Steps, when B is an && chain, are its conjuncts as B runs them, the
	// && of derived values computed in place opened up
	// (`event.enabled && warning_due && …` where warning_due is
	// `event.auto_compaction && remaining <= warning_at`): B is true
	// exactly when each step, run in turn until one is false, is true,
	// and the steps raise the errors B raises. A caller can run them
	// without B's nested calls. Their text is not kept: explanations
	// name Parts.
	Steps []Step

	lin        *linear            // see cnode.lin
	comparison func() *Comparison // see Comparison
	named      *Program           // see Named
}

// Step is one conjunct of a program's && chain: B, and Bits when it is a
// test of bool facts a caller can fuse with its neighbours.
type Step struct {
	B    func(*Frame) bool
	Bits *BitTest
}

// Lit is an equality of an event's string fact with a literal: Fact is
// the fact's index; for an enum fact Code is the literal's index in the
// enum, otherwise Str is the literal.
type Lit struct {
	Fact int
	Enum bool
	Code int
	Str  string
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
	// An expression the checker accepted when the binary was built, in an
	// environment of the same signature, is not checked again, and its
	// environment's checker configuration is not made (see prechecked).
	checked := env.prechecked(src)
	tree := env.Trees.get(src)
	if tree == nil {
		t, err := parse(src, env, checked)
		if err != nil {
			return nil, exprError(src, err)
		}
		tree = t
		env.Trees.put(src, tree)
	}
	c := &compiler{src: src, env: env}
	if err := c.names(tree.Node); err != nil {
		return nil, err
	}
	if !checked {
		if err := check(tree, config(env)); err != nil {
			return nil, exprError(src, err)
		}
		if recordChecked != nil {
			recordChecked(env.signature(), src, env, tree)
		}
	}
	n, err := c.node(tree.Node)
	if err != nil {
		return nil, err
	}
	p := n.program(src)
	p.Weight = c.weight(tree.Node)
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

// InlineWeight is the heaviest derived value worth computing again at
// each reference rather than keeping in the frame: below it, a memo's
// bookkeeping costs more than the value. A derived value that is inlined
// costs at most InlineWeight steps per reference, and one heavier is
// computed once per event, so no chain of derived values grows past a
// policy's size times InlineWeight.
const InlineWeight = 32

// weight counts n's syntax nodes, with the weight of each derived value it
// computes inline.
func (c *compiler) weight(n ast.Node) int {
	// The common nodes are walked without children's slice: a load weighs
	// every expression it compiles.
	switch n := n.(type) {
	case *ast.IdentifierNode:
		if b, ok := c.env.top(n.Value); ok && b.Memo <= 0 && b.Prog.Const == nil {
			return 1 + b.Prog.Weight
		}
		return 1
	case *ast.MemberNode:
		return 1 + c.weight(n.Node) + c.weight(n.Property)
	case *ast.BinaryNode:
		return 1 + c.weight(n.Left) + c.weight(n.Right)
	case *ast.UnaryNode:
		return 1 + c.weight(n.Node)
	case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode, *ast.BoolNode, *ast.NilNode:
		return 1
	}
	w := 1
	for _, child := range children(n) {
		w += c.weight(child)
	}
	return w
}

// Trees keeps parsed expressions by source for one policy load: a rule's
// guard is compiled once for each event kind it is on, and parsing is the
// larger part of compiling. Parsing does not depend on the environment
// (every Env has the same functions), and neither the checker nor the
// compiler changes what the parser built, so one tree serves every Env.
type Trees struct{ m map[string]*parser.Tree }

func (t *Trees) get(src string) *parser.Tree {
	if t == nil {
		return nil
	}
	return t.m[src]
}

func (t *Trees) put(src string, tree *parser.Tree) {
	if t == nil {
		return
	}
	if t.m == nil {
		t.m = map[string]*parser.Tree{}
	}
	t.m[src] = tree
}

// conjuncts flattens a chain of && into its operands, left to right.
func conjuncts(n ast.Node) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
		return append(conjuncts(b.Left), conjuncts(b.Right)...)
	}
	return []ast.Node{n}
}

// checkMu makes one type check at a time. A checker configuration is
// shared by every environment of its shape (cfgCache), and expr's checker
// writes into it as it checks (the nature cache of each type's methods):
// two loads at once (the language server's checks, replay's and report's
// workers) raced there, and a race on a map can end the process.
// TestLoadsRunConcurrently, under -race, holds it.
var checkMu sync.Mutex

func check(tree *parser.Tree, cfg *conf.Config) error {
	checkMu.Lock()
	defer checkMu.Unlock()
	_, err := checker.Check(tree, cfg)
	return err
}

// config returns the checker configuration of env: the environment's
// types and the functions, built once per process for each shape of
// environment (see cfgCache).
func config(env *Env) *conf.Config {
	if env.cfg != nil {
		return env.cfg
	}
	key := env.signature()
	if c, ok := cfgCache.Load(key); ok {
		env.cfg = c.(*conf.Config)
		return env.cfg
	}
	cfg := configOf(env.checkerEnv())
	cfgCache.Store(key, cfg)
	env.cfg = cfg
	return cfg
}

// configOf is a configuration of the language's functions over an
// environment of expr's types.
func configOf(env types.Map) *conf.Config {
	cfg := newConfig()
	cfg.MaxNodes = DefaultMaxNodes
	opts := []expr.Option{
		expr.Env(env),
		expr.Function("field", func(p ...any) (any, error) { return nil, nil }, new(func(string, int) string)),
		expr.Function("nfields", func(p ...any) (any, error) { return nil, nil }, new(func(string) int)),
	}
	for _, o := range opts {
		o(cfg)
	}
	return cfg
}

// baseConfig is expr's default configuration, made once: conf.CreateNew
// fills a new table of expr's builtins for each configuration, and a load
// of the default makes 18 (0.8 M of the 23 M instructions of serve's
// start). newConfig copies it and shares that table, which expr only
// reads; the maps expr's options write into are each config's own.
var baseConfig = sync.OnceValue(conf.CreateNew)

// newConfig is conf.CreateNew (TestNewConfigIsCreateNew).
func newConfig() *conf.Config {
	c := *baseConfig()
	c.ConstFns = map[string]reflect.Value{}
	c.Functions = conf.FunctionsTable{}
	c.Disabled = map[string]bool{}
	return &c
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
