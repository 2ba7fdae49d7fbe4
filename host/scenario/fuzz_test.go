package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

// FuzzParse decodes arbitrary scenario text: a scenario or diagnostics
// with positions, never a panic. Seeds: the built-in scenario and every
// scenario under testdata/.
func FuzzParse(f *testing.F) {
	f.Add(defaultSource)
	paths, _ := filepath.Glob("../../testdata/scenarios/*.scenario.hcl")
	if len(paths) == 0 {
		f.Fatal("no seed scenarios")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// Operator chains at the nesting bound and one past it.
	for _, n := range []int{rules.MaxNesting, rules.MaxNesting + 1} {
		f.Add([]byte("scenario {\n  title = " + strings.Repeat("1 * ", n) + "1\n}\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, diags := Parse(src, "fuzz.scenario.hcl")
		if sc == nil && !diags.HasErrors() {
			t.Fatal("no scenario and no error")
		}
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("diagnostic without a position: %s: %s", d.Summary, d.Detail)
			}
		}
		_ = rules.FormatDiagnostics(map[string][]byte{"fuzz.scenario.hcl": src}, diags)
	})
}
