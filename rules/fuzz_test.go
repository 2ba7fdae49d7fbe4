package rules_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// FuzzLoad loads arbitrary policy text: it loads or gives diagnostics, and
// never panics.
func FuzzLoad(f *testing.F) {
	f.Add(small)
	f.Add(smallJSON)
	for _, n := range policies.Names() {
		src, _ := policies.Source(n)
		f.Add(string(src.Bytes))
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, diags := rules.Load(rules.Source{Name: "fuzz.hcl", Bytes: []byte(text)}, rules.WithBuiltins(policies.Source))
		if p == nil && !diags.HasErrors() {
			t.Fatal("no policy and no error")
		}
		_ = diags.Error()
	})
}
