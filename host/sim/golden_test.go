package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

// TestGoldenTimelines runs every scenario of testdata/scenarios, and the
// built-in one, and compares the timeline with NAME.timeline (go test
// ./host/sim -update rewrites them).
func TestGoldenTimelines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.scenario.hcl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	cases := map[string]func(t *testing.T) *scenario.Scenario{
		"default": func(t *testing.T) *scenario.Scenario {
			sc, diags := scenario.Default()
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			return sc
		},
	}
	for _, f := range files {
		f := f
		cases[strings.TrimSuffix(filepath.Base(f), ".scenario.hcl")] = func(t *testing.T) *scenario.Scenario {
			sc, diags := scenario.ParseFile(f)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			// Diagnostics and headers name the file relative to the
			// repository, wherever the test runs.
			sc.File = filepath.ToSlash(filepath.Join("testdata", "scenarios", filepath.Base(f)))
			return sc
		}
	}
	for name, load := range cases {
		t.Run(name, func(t *testing.T) {
			got := timeline(runScenario(t, load(t), sim.Options{}))
			golden := filepath.Join("..", "..", "testdata", "scenarios", name+".timeline")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./host/sim -update creates it)", err)
			}
			if string(want) != got {
				t.Errorf("timeline differs from %s (go test ./host/sim -update rewrites it)\n--- want\n%s\n--- got\n%s", golden, want, got)
			}
		})
	}
}

// TestDeterministic: the same scenario gives the same timeline and the
// same session file, byte for byte.
func TestDeterministic(t *testing.T) {
	a, b := run(t, "wipe_memory_successive_resets"), run(t, "wipe_memory_successive_resets")
	if timeline(a) != timeline(b) {
		t.Error("two runs gave different timelines")
	}
	var sa, sb strings.Builder
	_, _ = a.Session.WriteTo(&sa)
	_, _ = b.Session.WriteTo(&sb)
	if sa.String() != sb.String() {
		t.Error("two runs wrote different sessions")
	}
}

// TestScenarioFilesAreFormatted: the scenario files are in HCL's canonical
// format (resetpolicy fmt), as the built-in policies are.
func TestScenarioFilesAreFormatted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.scenario.hcl"))
	files = append(files, filepath.Join("..", "scenario", scenario.DefaultName))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := hclwrite.Format(b); string(got) != string(b) {
			t.Errorf("%s is not formatted (resetpolicy fmt %s)", f, f)
		}
	}
}
