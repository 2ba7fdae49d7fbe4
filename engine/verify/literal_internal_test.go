package verify

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// A run block's params are HCL literals that the test file reads back as
// the values verify ran with: numbers exactly, strings quoted, lists of
// numbers (autocompacter's retry_delays_ms).
func TestCtyLiteral(t *testing.T) {
	for _, c := range []struct {
		v    cty.Value
		want string
	}{
		{cty.NumberIntVal(30000), "30000"},
		{cty.NumberFloatVal(0.8), "0.8"},
		{cty.StringVal("a \"b\""), `"a \"b\""`},
		{cty.True, "true"},
		{cty.ListVal([]cty.Value{cty.NumberIntVal(20000), cty.NumberIntVal(5000)}), "[20000, 5000]"},
		{cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("x")}), `[1, "x"]`},
	} {
		if got := ctyLiteral(c.v); got != c.want {
			t.Errorf("%#v: %s, want %s", c.v, got, c.want)
		}
	}
}
