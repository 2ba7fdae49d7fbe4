package rules_test

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/policies"
)

// BenchmarkParseWipeMemoryHCL is HCL's parse of policies/wipe_memory.hcl
// alone: the floor under loading it (engine's BenchmarkLoadWipeMemory).
func BenchmarkParseWipeMemoryHCL(b *testing.B) {
	src, _ := policies.Source("wipe_memory")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, diags := hclsyntax.ParseConfig(src.Bytes, src.Name, hcl.InitialPos); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}
