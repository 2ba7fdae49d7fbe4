package testrun_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// loadPolicy loads the policy a test file names, as `resetpolicy test`
// does: a policy file relative to the test file, or a built-in.
func loadPolicy(f *testfile.File, overrides []rules.Override) (*rules.Policy, rules.Diagnostics) {
	if path := f.PolicyFile(); path != "" {
		return rules.LoadFile(path, rules.WithBuiltins(policies.Source), rules.WithOverrides(overrides...))
	}
	return policies.Load(f.Policy, nil, rules.WithOverrides(overrides...))
}

// runFiles decodes and runs test files as `resetpolicy test` does.
func runFiles(t *testing.T, paths []string, opts ...testrun.Option) *testrun.Report {
	t.Helper()
	runner := testrun.New(loadPolicy, opts...)
	for _, p := range paths {
		f, diags := testfile.Load(p)
		if diags.HasErrors() {
			runner.Invalid(p, diags, map[string][]byte{p: f.Source})
			continue
		}
		runner.RunFile(f)
	}
	return runner.Report()
}

// TestPolicyTestFiles runs every *.test.hcl under policies/ and testdata/
// (the built-ins' suites and the runner's own fixtures that must pass), so
// that `go test ./...` covers them. Fixtures that must fail live under
// directories starting with "_", which Find skips.
func TestPolicyTestFiles(t *testing.T) {
	var paths []string
	for _, dir := range []string{"../../policies", "../../testdata"} {
		found, err := testfile.Find(dir)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, found...)
	}
	if len(paths) == 0 {
		t.Fatal("no *.test.hcl files found under policies/ and testdata/")
	}
	rep := runFiles(t, paths)
	var out strings.Builder
	if err := rep.WriteText(&out, testrun.TextOptions{Coverage: true}); err != nil {
		t.Fatal(err)
	}
	if rep.Failed() > 0 {
		t.Errorf("policy tests failed:\n%s", out.String())
	} else {
		t.Logf("%d files\n%s", len(paths), out.String())
	}
	if rep.Passed() == 0 {
		t.Errorf("no run passed; is the runner running anything?")
	}
}
