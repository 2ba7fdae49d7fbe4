package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestFromWithoutStateIndex: a group whose from clauses read more slot
// combinations than the state index tabulates (13 two-valued slots, 8,192
// combinations) still fires a rule only from the states its from allows.
func TestFromWithoutStateIndex(t *testing.T) {
	var b strings.Builder
	b.WriteString("policy \"wide\" {}\n")
	var from []string
	for i := 0; i < 13; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\"]\n}\n", i)
		from = append(from, fmt.Sprintf("s%d = \"a\"", i))
	}
	fmt.Fprintf(&b, `group "g" {
  rule "all_a" {
    on   = "request"
    from = { %s }
    to   = { s12 = "b" }
  }
  rule "otherwise" {
    on = "request"
  }
}
`, strings.Join(from, ", "))
	s := load(t, b.String()).NewSession()
	for i, want := range [][]string{{"all_a"}, {"otherwise"}, {"otherwise"}} {
		d, err := s.Decide(event(t, `{"event":"request"}`))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Rules, want) {
			t.Fatalf("request %d: %v, want %v (state %v)", i+1, d.Rules, want, s.State())
		}
	}
}
