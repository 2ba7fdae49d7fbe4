package testrun_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/testrun")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/testrun -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (go test ./engine/testrun -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestGoldenBrokenPolicy runs a test file against a copy of a small policy
// with a deliberately broken rule: the runs that pin the broken behaviour
// fail with a readable expected-versus-actual, the others pass, and the
// report (text and JUnit) is exactly the golden one.
func TestGoldenBrokenPolicy(t *testing.T) {
	const dir = "../../testdata/testrun/_fail"
	rep := runFiles(t, []string{filepath.Join(dir, "broken.test.hcl")})

	if got, want := rep.Passed(), 1; got != want {
		t.Errorf("passed = %d, want %d", got, want)
	}
	if got, want := rep.Failed(), 4; got != want {
		t.Errorf("failed = %d, want %d", got, want)
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text, testrun.TextOptions{Verbose: true, Coverage: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join(dir, "broken.golden"), text.Bytes())

	var junit bytes.Buffer
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join(dir, "broken.junit.golden"), junit.Bytes())
}

// TestGoldenInvalidTestFiles decodes malformed test files: each is one
// failure whose diagnostics (file:line:col, with the offending line) are
// exactly the golden ones.
func TestGoldenInvalidTestFiles(t *testing.T) {
	const dir = "../../testdata/testrun/_invalid"
	paths, err := filepath.Glob(filepath.Join(dir, "*.test.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no test files in %s", dir)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".test.hcl")
		t.Run(name, func(t *testing.T) {
			rep := runFiles(t, []string{p})
			if rep.Passed() != 0 || rep.Failed() != 1 {
				t.Errorf("passed %d, failed %d; want an invalid file to count as 1 failure", rep.Passed(), rep.Failed())
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text, testrun.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "error: ") {
				t.Errorf("no diagnostic in the report:\n%s", text.String())
			}
			golden(t, filepath.Join(dir, name+".golden"), text.Bytes())
		})
	}
}
