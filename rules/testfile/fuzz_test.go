package testfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

// FuzzParse checks that no input makes Parse panic; with plain `go test`
// it runs the seeds: every test file under policies/ and testdata/, valid
// and not.
func FuzzParse(f *testing.F) {
	n := 0
	for _, pattern := range []string{"../../policies/*.test.hcl", "../../testdata/*/*.test.hcl", "../../testdata/*/*/*.test.hcl"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
				n++
			}
		}
	}
	if n < 5 {
		f.Fatalf("only %d seed files", n)
	}
	f.Add([]byte("policy = \"p\"\nrun \"r\" {\n  assert { condition = \"\\u00e9 && ${x}\" }\n}\n"))
	// Operator chains at the nesting bound and one past it.
	for _, n := range []int{rules.MaxNesting, rules.MaxNesting + 1} {
		f.Add([]byte("policy = \"p\"\nrun \"r\" {\n  x = " + strings.Repeat("1 + ", n) + "1\n}\n"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := Parse(src, "fuzz.test.hcl")
		if file == nil {
			t.Fatal("Parse returned no File")
		}
		if diags.HasErrors() {
			return
		}
		for _, run := range file.Runs {
			file.Overrides(run)
			for _, ev := range run.Events {
				ev.JSON()
			}
			for _, a := range run.Asserts {
				_, _ = a.Eval(AssertEnv(nil, nil))
			}
		}
	})
}
