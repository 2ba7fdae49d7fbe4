package rules_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// TestReadmeExamplesLoad keeps the language reference honest: every hcl
// block in rules/README.md loads without diagnostics.
func TestReadmeExamplesLoad(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d hcl examples", len(blocks))
	}
	for i, m := range blocks {
		p, diags := rules.Load(rules.Source{Name: "README.md example", Bytes: []byte(m[1])}, rules.WithBuiltins(policies.Source))
		if diags.HasErrors() || p == nil {
			t.Errorf("example %d does not load:\n%s", i+1, diags.Error())
		}
	}
}
