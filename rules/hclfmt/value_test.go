package hclfmt

import (
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

func hclwriteValue(v cty.Value) string {
	return strings.TrimSpace(string(hclwrite.TokensForValue(v).Bytes()))
}

func TestValue(t *testing.T) {
	huge, _ := new(big.Float).SetPrec(512).SetString("123456789012345678901234567890.0123456789")
	cases := []struct {
		name string
		v    cty.Value
	}{
		{"zero", cty.Zero},
		{"integer", cty.NumberIntVal(42)},
		{"negative", cty.NumberIntVal(-7)},
		{"max int64", cty.NumberIntVal(math.MaxInt64)},
		{"min int64", cty.NumberIntVal(math.MinInt64)},
		{"uint64", cty.NumberUIntVal(math.MaxUint64)},
		{"fraction", cty.NumberFloatVal(1.5)},
		{"negative fraction", cty.NumberFloatVal(-0.25)},
		{"third", cty.NumberFloatVal(1.0 / 3)},
		{"1e30", cty.NumberFloatVal(1e30)},
		{"1e-30", cty.NumberFloatVal(1e-30)},
		{"parsed big", cty.MustParseNumberVal("1e30")},
		{"parsed fraction", cty.MustParseNumberVal("0.1")},
		{"big float", cty.NumberVal(huge)},
		{"negative zero", cty.NumberFloatVal(math.Copysign(0, -1))},
		{"empty string", cty.StringVal("")},
		{"plain string", cty.StringVal("hello")},
		{"quotes", cty.StringVal(`say "hi"`)},
		{"backslash", cty.StringVal(`a\b\\c`)},
		{"newline", cty.StringVal("a\nb\n")},
		{"carriage return", cty.StringVal("a\r\nb")},
		{"tab", cty.StringVal("a\tb")},
		{"interpolation", cty.StringVal("${x} and ${")},
		{"directive", cty.StringVal("%{if x} and %{")},
		{"lone dollar and percent", cty.StringVal("$ % $$ %% $x %x $}")},
		{"dollar at end", cty.StringVal("cost $")},
		{"doubled already", cty.StringVal("$${x} %%{y}")},
		{"non-ASCII", cty.StringVal("é 日本語 👍🏽 e\u0301")},
		{"control characters", cty.StringVal("\x00\x01\x1b\x7f")},
		{"non-printing", cty.StringVal("\u200b\u00ad\u2028\ufeff")},
		{"non-printing above the BMP", cty.StringVal("\U000e0001\U0010fffd")},
		{"true", cty.True},
		{"false", cty.False},
		{"null string", cty.NullVal(cty.String)},
		{"null number", cty.NullVal(cty.Number)},
		{"null bool", cty.NullVal(cty.Bool)},
		{"null list", cty.NullVal(cty.List(cty.String))},
		{"null object", cty.NullVal(cty.Object(map[string]cty.Type{"a": cty.Number}))},
		{"null dynamic", cty.NullVal(cty.DynamicPseudoType)},
		{"list", cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		{"list of one", cty.ListVal([]cty.Value{cty.NumberIntVal(1)})},
		{"empty list", cty.ListValEmpty(cty.String)},
		{"set", cty.SetVal([]cty.Value{cty.NumberIntVal(3), cty.NumberIntVal(1), cty.NumberIntVal(2)})},
		{"set of strings", cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")})},
		{"empty set", cty.SetValEmpty(cty.Number)},
		{"tuple", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1), cty.True, cty.NullVal(cty.String)})},
		{"empty tuple", cty.EmptyTupleVal},
		{"map", cty.MapVal(map[string]cty.Value{"b": cty.NumberIntVal(2), "a": cty.NumberIntVal(1), "long_key": cty.NumberIntVal(3)})},
		{"empty map", cty.MapValEmpty(cty.String)},
		{"object", cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("x"), "n": cty.NumberIntVal(1), "ok": cty.True})},
		{"empty object", cty.EmptyObjectVal},
		{"keys needing quotes", cty.ObjectVal(map[string]cty.Value{
			"with space": cty.NumberIntVal(1), "1abc": cty.NumberIntVal(2), "": cty.NumberIntVal(3),
			"a.b": cty.NumberIntVal(4), "q\"uote": cty.NumberIntVal(5), "${x}": cty.NumberIntVal(6),
			"plain-ident_ok": cty.NumberIntVal(7), "é": cty.NumberIntVal(8), "日本": cty.NumberIntVal(9),
		})},
		{"map keys needing quotes", cty.MapVal(map[string]cty.Value{"a b": cty.StringVal("x"), "c": cty.StringVal("y")})},
		{"nested", cty.ObjectVal(map[string]cty.Value{
			"list": cty.ListVal([]cty.Value{
				cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(1), "bbb": cty.StringVal("two")}),
				cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(3), "bbb": cty.StringVal("four")}),
			}),
			"map":   cty.MapVal(map[string]cty.Value{"k": cty.ListVal([]cty.Value{cty.True, cty.False})}),
			"empty": cty.EmptyObjectVal,
			"tuple": cty.TupleVal([]cty.Value{cty.EmptyTupleVal, cty.ListValEmpty(cty.Number), cty.MapValEmpty(cty.Bool)}),
			"deep":  cty.ObjectVal(map[string]cty.Value{"x": cty.ObjectVal(map[string]cty.Value{"y": cty.ObjectVal(map[string]cty.Value{"z": cty.NumberFloatVal(-1.5)})})}),
		})},
		{"list of lists", cty.ListVal([]cty.Value{
			cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(-2)}),
			cty.ListVal([]cty.Value{cty.NumberIntVal(3)}),
		})},
		{"negative numbers in a tuple", cty.TupleVal([]cty.Value{cty.NumberIntVal(-1), cty.NumberIntVal(-2), cty.NumberFloatVal(-0.5)})},
		{"object in a string list position", cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("b\nc")})})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := Value(c.v), hclwriteValue(c.v); got != want {
				t.Errorf("Value(%#v)\n= %q\nhclwrite gives\n  %q", c.v, got, want)
			}
		})
	}
}

// TestValuePanics: like hclwrite, Value panics on what it cannot write.
func TestValuePanics(t *testing.T) {
	for name, v := range map[string]cty.Value{
		"unknown":         cty.UnknownVal(cty.String),
		"unknown element": cty.ListVal([]cty.Value{cty.UnknownVal(cty.Number)}),
		"capsule":         cty.CapsuleVal(cty.Capsule("c", reflect.TypeOf(0)), new(int)),
	} {
		t.Run(name, func(t *testing.T) {
			panics := func(f func()) (p bool) {
				defer func() { p = recover() != nil }()
				f()
				return false
			}
			if !panics(func() { hclwriteValue(v) }) {
				t.Fatal("hclwrite does not panic")
			}
			if !panics(func() { Value(v) }) {
				t.Error("Value does not panic")
			}
		})
	}
}
