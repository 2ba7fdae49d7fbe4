package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
)

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
		x, src := xs[0], args[0]
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
		g, src := xs[0].s, n
		fn := map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper, "trim": strings.TrimSpace}[name]
		out = cnode{t: String, s: func(f *Frame) string {
			x := g(f)
			if !f.charge(len(x), src) {
				return ""
			}
			// Case mapping may grow a string (a few runes take more bytes
			// in the other case); the result must stay under the bound.
			if r := fn(x); len(r) <= MaxValueBytes {
				return r
			}
			f.failBound("%s: the string would be over %d bytes", src, MaxValueBytes)
			return ""
		}}
	case "field":
		if err := want(2, String, Int); err != nil {
			return cnode{}, err
		}
		s, i, src := xs[0].s, xs[1].n, n
		out = cnode{t: String, s: func(f *Frame) string {
			x := s(f)
			if !f.charge(len(x), src) {
				return ""
			}
			return field(x, int(i(f)))
		}}
	case "nfields":
		if err := want(1, String); err != nil {
			return cnode{}, err
		}
		s, src := xs[0].s, n
		out = cnode{t: Int, n: func(f *Frame) float64 {
			x := s(f)
			if !f.charge(len(x), src) {
				return 0
			}
			return float64(nfields(x))
		}}
	default:
		return cnode{}, c.errAt(n, "function %s is not available in policy expressions", name)
	}
	return c.fold(out, xs...)
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
