package lang

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// RecordChecked makes every Compile run the checker, prechecked or not,
// and tells f of each expression the checker accepted: its environment's
// signature, its source, and its tree as parsed for the prechecked path
// and as the checker left it. restore undoes it.
func RecordChecked(f func(sig, src string, parsed, checked *parser.Tree)) (restore func()) {
	usePrechecked = false
	recordChecked = func(sig, src string, env *Env, checked *parser.Tree) {
		parsed, err := parser.ParseWithConfig(src, parseConfig(env, true))
		if err != nil {
			panic(err)
		}
		f(sig, src, parsed, checked)
	}
	return func() { usePrechecked, recordChecked = true, nil }
}

// EncodeTree parses src as a prechecked expression is parsed and encodes
// its tree for the table.
func EncodeTree(src string) (string, bool) {
	t, err := parser.ParseWithConfig(src, sharedParseConfig())
	if err != nil {
		return "", false
	}
	return encodeTree(t.Node)
}

// TreeShape writes out a syntax tree's nodes with their locations and
// every exported field: everything of a tree the compiler reads, and none
// of the types the checker notes on the nodes.
func TreeShape(n ast.Node) string {
	var b strings.Builder
	shape(&b, reflect.ValueOf(n))
	return b.String()
}

func shape(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if n, ok := v.Interface().(ast.Node); ok && v.Kind() == reflect.Pointer {
			fmt.Fprintf(b, "@%d-%d ", n.Location().From, n.Location().To)
		}
		shape(b, v.Elem())
	case reflect.Struct:
		b.WriteString(v.Type().Name())
		b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				b.WriteString(f.Name)
				b.WriteByte(':')
				shape(b, v.Field(i))
				b.WriteByte(' ')
			}
		}
		b.WriteByte('}')
	case reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			shape(b, v.Index(i))
			b.WriteByte(' ')
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%#v", v.Interface())
	}
}
