package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

func newTestCmd() *cobra.Command {
	var (
		runExpr  string
		verbose  bool
		coverage bool
		junit    string
		asJSON   bool
		// withVerify: one CI line checks the runs and the properties.
		withVerify bool
		paramsMode string
	)
	cmd := &cobra.Command{
		Use:   "test [PATH...] [-run REGEXP] [-v] [--coverage] [--junit FILE] [--verify [--params range]]",
		Short: "Run policy test files (*.test.hcl)",
		Long: `test runs policy test files: every *.test.hcl file under the given paths
(directories are searched recursively, skipping those whose name starts with
"." or "_" and node_modules; a file named on the command line is run whatever
its name). With no path it runs the test files under the current directory and
the built-in policies' own test files.

Each run block loads its policy with its param overrides, starts a fresh
session, sends its events in order and checks every expectation and assert.
A failing run never stops the others. Output reads like 'go test': a
'--- FAIL: FILE/RUN' block per failing run with what was expected and what
happened, and last the line 'N passed, N failed'.

Exit status: 0 when every run passed, 1 when any failed or a test file is
invalid, 2 for a usage error.`,
		Example: `  resetpolicy test
  resetpolicy test policies/
  resetpolicy test -run 'wipe_memory.test.hcl/story' -v policies/
  resetpolicy test --coverage --junit report.xml .`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var filter *testrun.RunPattern
			if runExpr != "" {
				p, err := testrun.ParseRun(runExpr)
				if err != nil {
					return usage("-run %v", err)
				}
				filter = p
			}
			inputs, err := findTestInputs(args)
			if err != nil {
				return err
			}
			if len(inputs) == 0 {
				return failure("no test files (*%s) under %s", testfile.Suffix, strings.Join(args, ", "))
			}
			verifyFailed := 0
			switch {
			case paramsMode != "in-force" && paramsMode != "range":
				return usage("--params %q: want in-force or range", paramsMode)
			case paramsMode == "range" && !withVerify:
				return usage("--params range goes with --verify")
			}
			if withVerify {
				verifyFailed = verifyTestPolicies(cmd.OutOrStdout(), cmd.ErrOrStderr(), inputs, paramsMode == "range")
			}
			rep := runTests(inputs, filter, cmd.ErrOrStderr())
			if len(rep.Results) == 0 {
				return failure("no tests to run: -run %q matches no run", runExpr)
			}
			write := func() error {
				return rep.WriteText(cmd.OutOrStdout(), testrun.TextOptions{Verbose: verbose, Coverage: coverage})
			}
			if asJSON {
				write = func() error { return rep.WriteJSON(cmd.OutOrStdout(), coverage) }
			}
			if err := write(); err != nil {
				return failure("%v", err)
			}
			if junit != "" {
				if err := writeJUnit(junit, rep); err != nil {
					return failure("--junit: %v", err)
				}
			}
			if rep.Failed() > 0 || verifyFailed > 0 {
				return silent
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&runExpr, "run", "", "run only the runs selected as go test selects: FILE/RUN, each part an unanchored regular expression for its level (FILE is the test file's base name; -run /overflow: every run whose name contains overflow)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list the runs that passed")
	cmd.Flags().BoolVar(&coverage, "coverage", false, "report per policy the share of rules fired and every rule no run fired")
	cmd.Flags().StringVar(&junit, "junit", "", "write a JUnit XML report to `FILE`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results (and with --coverage the coverage) as one JSON object instead of text")
	cmd.Flags().BoolVar(&withVerify, "verify", false, "also verify each tested policy's properties (as resetpolicy verify), before the runs")
	cmd.Flags().StringVar(&paramsMode, "params", "in-force", "with --verify: in-force, the param values the test file sets; range: also each param the file does not set over the range its validation allows (as verify --params range)")
	return cmd
}

// testInput is one test file to run: on disk, or a built-in's.
type testInput struct {
	name string
	src  []byte
	err  error
}

// findTestInputs lists the test files under paths; with no path, those under
// the current directory and the built-ins' own.
func findTestInputs(paths []string) ([]testInput, error) {
	builtins := len(paths) == 0
	if builtins {
		paths = []string{"."}
	}
	var inputs []testInput
	seen := map[string]bool{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usage("%s: no such file or directory", p)
		}
		if err != nil {
			return nil, usage("%v", err)
		}
		var files []string
		if info.IsDir() {
			files, err = testfile.Find(p)
			if err != nil {
				return nil, failure("%v", err)
			}
		} else {
			files = []string{p}
		}
		for _, f := range files {
			key, err := filepath.Abs(f)
			if err != nil {
				key = f
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			src, diags := rules.ReadHCLFile(f, "test file")
			var readErr error
			if diags.HasErrors() {
				readErr = errors.New(diags[0].Detail)
			}
			inputs = append(inputs, testInput{name: f, src: src, err: readErr})
		}
	}
	if builtins {
		inputs = append(inputs, builtinTestInputs(inputs)...)
	}
	return inputs, nil
}

// builtinTestInputs returns the built-ins' embedded test files, less those
// already found on disk (the same text, or the same path relative to the
// current directory, as when run in the project's own tree).
func builtinTestInputs(found []testInput) []testInput {
	var out []testInput
	for _, name := range policies.TestFiles() {
		src, ok := policies.TestSource(strings.TrimSuffix(name, testfile.Suffix))
		if !ok {
			continue
		}
		dup := false
		for _, in := range found {
			if filepath.ToSlash(filepath.Clean(in.name)) == src.Name || bytes.Equal(in.src, src.Bytes) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, testInput{name: src.Name, src: src.Bytes})
		}
	}
	return out
}

// runTests decodes and runs every input; diagnostics that are only
// warnings go to warn.
func runTests(inputs []testInput, filter *testrun.RunPattern, warn io.Writer) *testrun.Report {
	opts := []testrun.Option{testrun.BaseTests(policies.TestSource)}
	if filter != nil {
		opts = append(opts, testrun.FilterRuns(filter))
	}
	runner := testrun.New(loadTestPolicy, opts...)
	for _, in := range inputs {
		if in.err != nil {
			runner.Invalid(in.name, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Cannot read test file",
				Detail:   in.err.Error(),
			}}, nil)
			continue
		}
		f, diags := testfile.Parse(in.src, in.name)
		sources := map[string][]byte{in.name: in.src}
		if diags.HasErrors() {
			runner.Invalid(in.name, diags, sources)
			continue
		}
		if len(diags) > 0 {
			_ = rules.WriteDiagnostics(warn, sources, diags)
		}
		runner.RunFile(f)
	}
	return runner.Report()
}

// loadTestPolicy loads the policy a test file names: a policy file relative
// to the test file, or a built-in.
func loadTestPolicy(f *testfile.File, overrides []rules.Override) (*rules.Policy, rules.Diagnostics) {
	if path := f.PolicyFile(); path != "" {
		if ds, missing := fileio.MissingPolicyFile(f, path); missing {
			return nil, ds
		}
		return rules.LoadFile(path, append(builtinOptions(), rules.WithOverrides(overrides...))...)
	}
	return policies.Load(f.Policy, nil, rules.WithOverrides(overrides...))
}

func writeJUnit(path string, rep *testrun.Report) error {
	var b bytes.Buffer
	if err := rep.WriteJUnit(&b); err != nil {
		return err
	}
	return fileio.WriteOutput(path, b.Bytes(), 0o644)
}
