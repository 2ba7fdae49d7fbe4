package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

// Scenarios get the same size and nesting bounds as policies, from the
// same function.
func TestScenariosAreBounded(t *testing.T) {
	_, diags := Parse([]byte("scenario {\n  title = "+strings.Repeat("(", 100_000)+"\n}\n"), "deep.scenario.hcl")
	if !diags.HasErrors() || diags[0].Summary != "Nesting too deep" || diags[0].Subject.Start.Line != 2 {
		t.Fatalf("deep nesting: %v", diags)
	}
	// An operator chain nests too: HCL evaluates 1+1+…+1 recursively.
	_, diags = Parse([]byte("scenario {\n  title = "+strings.Repeat("1+", 500_000)+"1\n}\n"), "deep.scenario.hcl")
	if !diags.HasErrors() || diags[0].Summary != "Nesting too deep" {
		t.Fatalf("operator chain: %v", diags)
	}
	path := filepath.Join(t.TempDir(), "big.scenario.hcl")
	if err := os.WriteFile(path, []byte("# "+strings.Repeat("x", rules.MaxFileBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, diags := ParseFile(path); !diags.HasErrors() || diags[0].Summary != "File too large" {
		t.Fatalf("large file: %v", diags)
	}
}
