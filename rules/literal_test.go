package rules

import (
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestStringOrList: a string is a list of one, a list its strings, each
// with its range; anything else is an error naming what was read.
func TestStringOrList(t *testing.T) {
	cases := []struct {
		src     string
		want    []string
		wantErr bool
	}{
		{`"request"`, []string{"request"}, false},
		{`["turn_end", "before_settle"]`, []string{"turn_end", "before_settle"}, false},
		{`[]`, nil, false},
		{`["a", 1]`, []string{"a", ""}, true},
		{`1`, []string{""}, true},
		{`"a${x}"`, []string{""}, true},
		{`true ? ["a"] : ["b"]`, []string{""}, true}, // a list, but not one written out
	}
	for _, c := range cases {
		expr, diags := hclsyntax.ParseExpression([]byte(c.src), "x.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got, rngs, d := stringOrList(expr, "an event")
		if d.HasErrors() != c.wantErr || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q (errors: %v), want %q (errors: %v)", c.src, got, d, c.want, c.wantErr)
		}
		if len(rngs) != len(got) {
			t.Errorf("%s: %d ranges for %d values", c.src, len(rngs), len(got))
		}
	}
	// A single string is read without making the diagnostic that
	// hcl.ExprList gives for it.
	expr, _ := hclsyntax.ParseExpression([]byte(`"request"`), "x.hcl", hcl.InitialPos)
	if n := testing.AllocsPerRun(10, func() { stringOrList(expr, "an event") }); n > 2 {
		t.Errorf("%v allocations to read one string", n)
	}
}
