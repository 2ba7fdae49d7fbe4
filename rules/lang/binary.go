package lang

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
)

func (c *compiler) binary(n *ast.BinaryNode) (cnode, error) {
	l, err := c.node(n.Left)
	if err != nil {
		return cnode{}, err
	}
	if n.Operator == "in" {
		return c.in(n, l)
	}
	r, err := c.node(n.Right)
	if err != nil {
		return cnode{}, err
	}
	var out cnode
	switch op := n.Operator; op {
	case "&&", "and", "||", "or":
		if l.t != Bool || r.t != Bool {
			return cnode{}, c.errAt(n, "%s needs bools, not %s and %s", op, l.t, r.t)
		}
		out = logical(op == "&&" || op == "and", l, r)
	case "==", "!=":
		if err := c.enumLiteral(n, l, r); err != nil {
			return cnode{}, err
		}
		if l.t.Numeric() && r.t.Numeric() {
			if cmp := linearCompare(op, l, r); cmp != nil {
				out = cnode{t: Bool, b: cmp}
				break
			}
		}
		eq, err := c.equal(n, l, r, op == "!=")
		if err != nil {
			return cnode{}, err
		}
		out = eq
	case "<", "<=", ">", ">=":
		switch {
		case l.t.Numeric() && r.t.Numeric():
			if cmp := linearCompare(op, l, r); cmp != nil {
				out = cnode{t: Bool, b: cmp}
				break
			}
			a, b := l.n, r.n
			out = cnode{t: Bool, b: map[string]func(*Frame) bool{
				"<":  func(f *Frame) bool { return a(f) < b(f) },
				"<=": func(f *Frame) bool { return a(f) <= b(f) },
				">":  func(f *Frame) bool { return a(f) > b(f) },
				">=": func(f *Frame) bool { return a(f) >= b(f) },
			}[op]}
		case l.t == String && r.t == String:
			a, b := l.s, r.s
			out = cnode{t: Bool, b: map[string]func(*Frame) bool{
				"<":  func(f *Frame) bool { return a(f) < b(f) },
				"<=": func(f *Frame) bool { return a(f) <= b(f) },
				">":  func(f *Frame) bool { return a(f) > b(f) },
				">=": func(f *Frame) bool { return a(f) >= b(f) },
			}[op]}
		default:
			return cnode{}, c.errAt(n, "cannot compare %s with %s", l.t, r.t)
		}
	case "+", "-", "*", "/", "%", "**", "^":
		if op == "+" && l.t == String && r.t == String {
			a, b, src := l.s, r.s, n
			out = cnode{t: String, s: func(f *Frame) string { return concat(f, src, a(f), b(f)) }}
			break
		}
		if !l.t.Numeric() || !r.t.Numeric() {
			return cnode{}, c.errAt(n, "%s needs numbers, not %s and %s", op, l.t, r.t)
		}
		t := Int
		if l.t == Float || r.t == Float || op == "/" || op == "**" || op == "^" {
			t = Float
		}
		lk, rk := constOf(l), constOf(r)
		lin := combine(op, l.lin, r.lin, lk, rk)
		if in := inPlace(op, l, r); in != nil {
			out = cnode{t: t, n: in, lin: lin}
			break
		}
		a, b, src := l.n, r.n, n
		switch op {
		case "+":
			out = cnode{t: t, n: func(f *Frame) float64 { return a(f) + b(f) }, lin: lin}
		case "-":
			out = cnode{t: t, n: func(f *Frame) float64 { return a(f) - b(f) }, lin: lin}
		case "*":
			out = cnode{t: t, n: func(f *Frame) float64 { return a(f) * b(f) }, lin: lin}
		case "/":
			out = cnode{t: t, n: func(f *Frame) float64 {
				d := b(f)
				if d == 0 {
					f.fail("%s: division by zero", src)
					return 0
				}
				return a(f) / d
			}}
		case "%":
			if t != Int {
				return cnode{}, c.errAt(n, "%% needs ints, not %s and %s", l.t, r.t)
			}
			out = cnode{t: t, n: func(f *Frame) float64 {
				d := b(f)
				if d == 0 {
					f.fail("%s: modulo by zero", src)
					return 0
				}
				return math.Mod(a(f), d)
			}}
		default:
			out = cnode{t: t, n: func(f *Frame) float64 { return math.Pow(a(f), b(f)) }}
		}
	case "contains", "startsWith", "endsWith":
		if l.t != String || r.t != String {
			return cnode{}, c.errAt(n, "%s needs strings, not %s and %s", op, l.t, r.t)
		}
		a, b, src := l.s, r.s, n
		fn := map[string]func(string, string) bool{"contains": strings.Contains, "startsWith": strings.HasPrefix, "endsWith": strings.HasSuffix}[op]
		out = cnode{t: Bool, b: func(f *Frame) bool {
			x, y := a(f), b(f)
			return f.charge(len(x), src) && fn(x, y)
		}}
	case "matches":
		if l.t != String || r.t != String {
			return cnode{}, c.errAt(n, "matches needs strings, not %s and %s", l.t, r.t)
		}
		if r.k == nil {
			return cnode{}, c.errAt(n.Right, "the pattern of matches must be a constant")
		}
		re, err := regexp.Compile(r.k.Str)
		if err != nil {
			return cnode{}, c.errAt(n.Right, "bad pattern: %v", err)
		}
		a, src := l.s, n
		out = cnode{t: Bool, b: func(f *Frame) bool {
			x := a(f)
			return f.charge(len(x), src) && re.MatchString(x)
		}}
	case "??":
		if l.t != Any {
			return l, nil
		}
		a, b := l.v, asValue(r)
		t := r.t
		if r.t == Any {
			t = Any
		}
		out = cnode{t: Any, v: func(f *Frame) Value {
			if v := a(f); v.K != Invalid {
				return v
			}
			return b(f)
		}}
		_ = t
	default:
		return cnode{}, c.errAt(n, "operator %s is not supported in policy expressions", op)
	}
	return c.fold(out, l, r)
}

// enumLiteral rejects a comparison of an enum slot or fact with a string
// literal it can never equal: a misspelt phase is a load-time error.
func (c *compiler) enumLiteral(n *ast.BinaryNode, l, r cnode) error {
	check := func(e cnode, lit cnode, at ast.Node) error {
		if len(e.enum) == 0 || lit.k == nil || lit.t != String {
			return nil
		}
		if !slices.Contains(e.enum, lit.k.Str) {
			return c.errAt(at, "%q is not a value of %s (%s)", lit.k.Str, e.what, strings.Join(quoted(e.enum), ", "))
		}
		return nil
	}
	if err := check(l, r, n.Right); err != nil {
		return err
	}
	return check(r, l, n.Left)
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}

// equal compiles l == r, or l != r when neg: the comparisons that read a
// fact or slot in place test for inequality in the same closure, not by
// a call of the equality's.
func (c *compiler) equal(n *ast.BinaryNode, l, r cnode, neg bool) (cnode, error) {
	pick := func(eq, ne func(*Frame) bool) cnode {
		if neg {
			return cnode{t: Bool, b: ne}
		}
		return cnode{t: Bool, b: eq}
	}
	switch {
	case l.t.Numeric() && r.t.Numeric():
		a, b := l.n, r.n
		return pick(func(f *Frame) bool { return a(f) == b(f) }, func(f *Frame) bool { return a(f) != b(f) }), nil
	case l.t == String && r.t == String:
		if l.code == nil && r.code != nil {
			l, r = r, l
		}
		if l.k == nil && r.k != nil && l.ref == nil && r.ref != nil {
			l, r = r, l
		}
		if l.code != nil && r.k != nil {
			code := slices.Index(l.enum, r.k.Str)
			want := float64(code)
			i := l.ref.index
			if l.ref.event {
				var out cnode
				if codeReadable(i, len(l.enum)) {
					sh, c := uint(4*i), uint64(code)
					out = pick(func(f *Frame) bool { return f.Codes>>sh&15 == c }, func(f *Frame) bool { return f.Codes>>sh&15 != c })
				} else {
					out = pick(func(f *Frame) bool { return f.Facts[i].Num == want }, func(f *Frame) bool { return f.Facts[i].Num != want })
				}
				if !neg {
					out.lit = &Lit{Fact: i, Enum: true, Code: code, Str: r.k.Str}
				}
				return out, nil
			}
			return pick(func(f *Frame) bool { return f.State[i].Num == want }, func(f *Frame) bool { return f.State[i].Num != want }), nil
		}
		if l.ref != nil && r.ref != nil && l.code == nil && r.code == nil {
			i, j := l.ref.index, r.ref.index
			switch {
			case l.ref.event && r.ref.event:
				return pick(func(f *Frame) bool { return f.Facts[i].Str == f.Facts[j].Str }, func(f *Frame) bool { return f.Facts[i].Str != f.Facts[j].Str }), nil
			case l.ref.event:
				return pick(func(f *Frame) bool { return f.Facts[i].Str == f.State[j].Str }, func(f *Frame) bool { return f.Facts[i].Str != f.State[j].Str }), nil
			case r.ref.event:
				return pick(func(f *Frame) bool { return f.State[i].Str == f.Facts[j].Str }, func(f *Frame) bool { return f.State[i].Str != f.Facts[j].Str }), nil
			}
			return pick(func(f *Frame) bool { return f.State[i].Str == f.State[j].Str }, func(f *Frame) bool { return f.State[i].Str != f.State[j].Str }), nil
		}
		a, b := l.s, r.s
		if r.k != nil {
			k := r.k.Str
			if l.ref != nil && l.code == nil {
				// One closure reads the fact or slot and compares.
				i := l.ref.index
				if l.ref.event {
					out := pick(func(f *Frame) bool { return f.Facts[i].Str == k }, func(f *Frame) bool { return f.Facts[i].Str != k })
					if !neg {
						out.lit = &Lit{Fact: i, Str: k}
					}
					return out, nil
				}
				return pick(func(f *Frame) bool { return f.State[i].Str == k }, func(f *Frame) bool { return f.State[i].Str != k }), nil
			}
			return pick(func(f *Frame) bool { return a(f) == k }, func(f *Frame) bool { return a(f) != k }), nil
		}
		return pick(func(f *Frame) bool { return a(f) == b(f) }, func(f *Frame) bool { return a(f) != b(f) }), nil
	case l.t == Bool && r.t == Bool:
		a, b := l.b, r.b
		return pick(func(f *Frame) bool { return a(f) == b(f) }, func(f *Frame) bool { return a(f) != b(f) }), nil
	case l.t == Any || r.t == Any:
		a, b := asValue(l), asValue(r)
		return pick(func(f *Frame) bool { return dynEqual(a(f), b(f)) }, func(f *Frame) bool { return !dynEqual(a(f), b(f)) }), nil
	}
	return cnode{}, c.errAt(n, "cannot compare %s with %s", l.t, r.t)
}

func dynEqual(a, b Value) bool {
	switch {
	case a.K == Invalid || b.K == Invalid:
		return a.K == b.K
	case a.K.Numeric() && b.K.Numeric():
		return a.Num == b.Num
	case a.K != b.K:
		return false
	case a.K == String:
		return a.Str == b.Str
	case a.K == Bool:
		return a.Bool == b.Bool
	}
	return false
}

// in compiles `x in [..]` and `x in param.list`.
func (c *compiler) in(n *ast.BinaryNode, l cnode) (cnode, error) {
	r, err := c.node(n.Right)
	if err != nil {
		return cnode{}, err
	}
	switch {
	case l.t == String && r.t == ListStr:
		if r.k != nil {
			for _, s := range r.k.StrList() {
				if err := c.enumLiteral(n, l, constant(String, Value{Str: s})); err != nil {
					return cnode{}, err
				}
			}
		}
		if l.code != nil && r.k != nil {
			var mask uint64
			for _, s := range r.k.StrList() {
				mask |= 1 << slices.Index(l.enum, s)
			}
			code := l.code
			return cnode{t: Bool, b: func(f *Frame) bool { return mask&(1<<uint(code(f))) != 0 }}, nil
		}
		a, b := l.s, r.v
		return c.fold(cnode{t: Bool, b: func(f *Frame) bool { return slices.Contains(b(f).StrList(), a(f)) }}, l, r)
	case l.t.Numeric() && r.t == ListNum:
		a, b := l.n, r.v
		return c.fold(cnode{t: Bool, b: func(f *Frame) bool { return slices.Contains(b(f).NumList(), a(f)) }}, l, r)
	}
	return cnode{}, c.errAt(n, "cannot look for %s in %s", l.t, r.t)
}

// logical compiles && (and) or || (or), short-circuiting.
func logical(and bool, l, r cnode) cnode {
	out := logicalNode(and, l, r)
	if and && out.bits == nil {
		out.steps = append(append([]Step(nil), stepsOf(l)...), stepsOf(r)...)
	}
	return out
}

// stepsOf is n's && chain, or n itself as its one step.
func stepsOf(n cnode) []Step {
	if len(n.steps) > 0 {
		return n.steps
	}
	return []Step{{B: n.b, Bits: n.bits}}
}

func logicalNode(and bool, l, r cnode) cnode {
	a, b := l.b, r.b
	if and && l.bits != nil && r.bits != nil && l.bits.Mask&r.bits.Mask == 0 {
		return bitNode(BitTest{Mask: l.bits.Mask | r.bits.Mask, Want: l.bits.Want | r.bits.Want})
	}
	// A left side that tests bool facts is tested in place, not by a
	// call (`event.auto_compaction && remaining <= warning_at`, read on
	// every request): with engine's and, 2.69x the reducer on the 26-event
	// stream against 2.81x (docs/performance.md).
	if l.bits != nil {
		m, w := l.bits.Mask, l.bits.Want
		if and {
			return cnode{t: Bool, b: func(f *Frame) bool { return f.Bits&m == w && b(f) }}
		}
		return cnode{t: Bool, b: func(f *Frame) bool { return f.Bits&m == w || b(f) }}
	}
	if and {
		return cnode{t: Bool, b: func(f *Frame) bool { return a(f) && b(f) }}
	}
	return cnode{t: Bool, b: func(f *Frame) bool { return a(f) || b(f) }}
}

// concat builds x + y within the value bound and the decision's budget.
func concat(f *Frame, src fmt.Stringer, x, y string) string {
	if len(x)+len(y) > MaxValueBytes {
		f.failBound("%s: the string would be %d bytes; a value is at most %d", src, len(x)+len(y), MaxValueBytes)
		return ""
	}
	if !f.charge(len(x)+len(y), src) {
		return ""
	}
	return x + y
}

// inPlace is + - or * of two numeric facts of the event, or of one and a
// constant, as one closure that reads them in place, or nil for any other
// operands: `event.context_window - event.tokens` and `event.reserve +
// param.margin` are the derived values every budget guard compares, and
// each was three closure calls.
func inPlace(op string, l, r cnode) func(*Frame) float64 {
	i, lk := numOperand(l)
	j, rk := numOperand(r)
	switch {
	case i >= 0 && j >= 0:
		switch op {
		case "+":
			return func(f *Frame) float64 { return f.Facts[i].Num + f.Facts[j].Num }
		case "-":
			return func(f *Frame) float64 { return f.Facts[i].Num - f.Facts[j].Num }
		case "*":
			return func(f *Frame) float64 { return f.Facts[i].Num * f.Facts[j].Num }
		}
	case i >= 0 && rk != nil:
		k := *rk
		switch op {
		case "+":
			return func(f *Frame) float64 { return f.Facts[i].Num + k }
		case "-":
			return func(f *Frame) float64 { return f.Facts[i].Num - k }
		case "*":
			return func(f *Frame) float64 { return f.Facts[i].Num * k }
		}
	case lk != nil && j >= 0:
		k := *lk
		switch op {
		case "+":
			return func(f *Frame) float64 { return k + f.Facts[j].Num }
		case "-":
			return func(f *Frame) float64 { return k - f.Facts[j].Num }
		case "*":
			return func(f *Frame) float64 { return k * f.Facts[j].Num }
		}
	}
	return nil
}

// numOperand is the index of the event fact a numeric node reads, or -1,
// and its value when it is a constant. The caller has checked that the
// node is numeric.
func numOperand(n cnode) (fact int, k *float64) {
	switch {
	case n.ref != nil && n.ref.event:
		return n.ref.index, nil
	case n.k != nil:
		return -1, &n.k.Num
	}
	return -1, nil
}
