package rules_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// TestOutline: the outline keeps every declaration of a policy that does
// not load (a misspelt fact in one guard), and of a file that uses a
// built-in, the built-in's parts with the file's param values in force.
func TestOutline(t *testing.T) {
	opts := []rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names)}
	broken := rules.Source{Name: "p.hcl", Bytes: []byte(`policy "p" {}
param "n" {
  type    = number
  default = 1
}
slot "s" {
  values = ["a", "b"]
}
group "g" {
  rule "r" {
    on   = "turn_end"
    when = "event.tokenz > param.n"
  }
}
`)}
	if p, diags := rules.Load(broken, opts...); p != nil || !diags.HasErrors() {
		t.Fatal("the broken policy loads")
	}
	o := rules.Outline(broken, opts...)
	if _, ok := o.Param("n"); !ok || len(o.Slots) != 1 || len(o.Rules) != 1 || o.Rules[0].Name != "r" {
		t.Errorf("outline: params %v, slots %v, rules %v", o.Params, o.Slots, o.Rules)
	}

	composed := rules.Source{Name: "c.hcl", Bytes: []byte("use \"wipe_memory\" {\n  warning_runway = 20000\n}\nslot \"extra\" {\n  type = bool\n}\n")}
	o = rules.Outline(composed, opts...)
	x, ok := o.Param("warning_runway")
	if !ok || o.Composition == nil || o.Composition.Base != "wipe_memory" {
		t.Fatalf("composed outline: %v %v", ok, o.Composition)
	}
	if got := x.Value.AsBigFloat().String(); got != "20000" || x.Origin != "c.hcl" {
		t.Errorf("warning_runway = %s from %s, want 20000 from c.hcl", got, x.Origin)
	}
	if _, ok := o.Slot("extra"); !ok {
		t.Error("the file's own slot is missing")
	}
	if s, ok := o.Slot("request"); !ok || s.DeclRange.Filename != "policies/wipe_memory.hcl" {
		t.Errorf("the built-in's slot: %v", s)
	}

	for _, src := range []string{"", "{{{", "use \"nope\" {}\n", "policy \"x\" {\n  slot \"s\" {"} {
		if o := rules.Outline(rules.Source{Name: "g.hcl", Bytes: []byte(src)}, opts...); o == nil {
			t.Errorf("%q: nil outline", src)
		}
	}
}
