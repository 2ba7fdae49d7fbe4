package testrun_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// disableRule returns a copy of a policy's source in which the named rule
// can never fire: its `when` becomes "false".
func disableRule(src []byte, filename, rule string) ([]byte, error) {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil, fmt.Errorf("%s: not native syntax", filename)
	}
	for _, g := range body.Blocks {
		if g.Type != "group" {
			continue
		}
		for _, r := range g.Body.Blocks {
			if r.Type != "rule" || len(r.Labels) == 0 || r.Labels[0] != rule {
				continue
			}
			if a, ok := r.Body.Attributes["when"]; ok {
				rng := a.Expr.Range()
				return splice(src, rng.Start.Byte, rng.End.Byte, `"false"`), nil
			}
			at := r.OpenBraceRange.End.Byte
			return splice(src, at, at, "\n    when = \"false\"\n"), nil
		}
	}
	return nil, fmt.Errorf("%s: rule %q not found", filename, rule)
}

func splice(src []byte, from, to int, with string) []byte {
	out := append([]byte{}, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// TestEveryBuiltinRuleIsPinned breaks each rule of each built-in in turn,
// in a copy of the policy, and runs the built-in's own test file against
// the copy: some run must fail, with what was expected and what happened.
// A rule whose breakage no run notices is behaviour no test pins.
func TestEveryBuiltinRuleIsPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("breaks every built-in rule in turn; skipped with -short")
	}
	for _, name := range policies.Names() {
		t.Run(name, func(t *testing.T) {
			src, _ := policies.Source(name)
			tsrc, ok := policies.TestSource(name)
			if !ok {
				t.Fatalf("built-in %s has no test file", name)
			}
			tf, diags := testfile.Parse(tsrc.Bytes, tsrc.Name)
			if diags.HasErrors() {
				t.Fatalf("%s does not decode: %v", tsrc.Name, diags)
			}
			pol, ldiags := policies.Load(name, nil)
			if ldiags.HasErrors() {
				t.Fatalf("%s does not load: %v", name, ldiags)
			}
			for _, r := range pol.Rules {
				broken, err := disableRule(src.Bytes, src.Name, r.Name)
				if err != nil {
					t.Fatal(err)
				}
				loadBroken := func(f *testfile.File, ov []rules.Override) (*rules.Policy, rules.Diagnostics) {
					return rules.Load(rules.Source{Name: src.Name, Bytes: broken}, rules.WithBuiltins(policies.Source), rules.WithOverrides(ov...))
				}
				if _, d := loadBroken(tf, nil); d.HasErrors() {
					t.Errorf("rule %s: the broken copy does not load: %v", r.Name, d)
					continue
				}
				runner := testrun.New(loadBroken)
				runner.RunFile(tf)
				rep := runner.Report()
				if rep.Failed() == 0 {
					t.Errorf("rule %s never fires in a broken copy, and every run of %s still passes", r.Name, tsrc.Name)
					continue
				}
				for _, res := range rep.Results {
					for _, f := range res.Failures {
						if f.Want == "" && f.Got == "" && f.Text == "" {
							t.Errorf("rule %s: run %q fails without saying why (%s)", r.Name, res.Run, f.Summary())
						}
					}
				}
			}
		})
	}
}
