package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
)

// A composed file's coverage counts the built-in's own runs for the rules it
// inherits, so only the team's additions could show as untested.
func TestComposedCoverageInheritsTheBuiltinsRuns(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "test", "--coverage", "testdata/compose")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// The built-in's rules, less the replaced one, plus the added one.
	base, _ := policies.Load("wipe_memory", nil)
	n := len(base.Rules) + 1
	want := fmt.Sprintf("coverage: wipe_memory (testdata/compose/resetpolicy.hcl): %d of %d rules fired (100.0%%)\n", n, n) +
		fmt.Sprintf("    %d inherited rules fired by policies/wipe_memory.test.hcl\n3 passed, 0 failed\n", n-4)
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}

	// Without the team's own runs, the added and replaced rules are left,
	// and the two inherited ones that read warning_runway, which the team
	// changed (the built-in's runs fired them at 12288, not 20000); with
	// inherit_tests = false, every rule is.
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/compose/resetpolicy.hcl")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("resetpolicy.hcl", string(src))
	write("resetpolicy.test.hcl", "policy = \"resetpolicy.hcl\"\n\nrun \"nothing\" {\n  event \"agent_end\" {}\n}\n")
	stdout, _, _ = runCLI(t, "", "test", "--coverage", dir)
	for _, want := range []string{fmt.Sprintf("%d of %d rules fired", n-4, n), fmt.Sprintf("    %d inherited rules fired by policies/wipe_memory.test.hcl\n", n-4),
		"    not fired: tool_refused_while_disabled (replaced)\n", "    not fired: model_switch_notice (added)\n",
		"    not fired: budget_warning_staged_once_per_window (inherited; the built-in's runs fired it with other values of warning_runway)\n",
		"    not fired: budget_warning_arms_automatic_close_out (inherited; the built-in's runs fired it with other values of warning_runway)\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("coverage lacks %q:\n%s", want, stdout)
		}
	}
	write("resetpolicy.hcl", string(src)+"\ninherit_tests = false\n")
	stdout, _, _ = runCLI(t, "", "test", "--coverage", dir)
	if !strings.Contains(stdout, fmt.Sprintf("0 of %d rules fired", n)) || !strings.Contains(stdout, "not fired: turn_end_commits_tool_request (inherited)") {
		t.Errorf("inherit_tests = false:\n%s", stdout)
	}
}

// policies FILE describes a user's policy as it does a built-in; --source
// FILE prints the effective policy; --source NAME --tests the test file.
func TestPoliciesDescribesFilesAndPrintsTests(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "policies", "testdata/compose/resetpolicy.hcl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"wipe_memory — testdata/compose/resetpolicy.hcl", "uses built-in wipe_memory: 1 rule added, 1 rule replaced, 0 rules disabled",
		"warning_runway", "= 20000 (testdata/compose/resetpolicy.hcl)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("policies FILE lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, code = runCLI(t, "", "policies", "--source", "wipe_memory", "--tests")
	if want, _ := os.ReadFile("policies/wipe_memory.test.hcl"); code != 0 || stdout != string(want) {
		t.Errorf("--source wipe_memory --tests: exit %d, %d bytes", code, len(stdout))
	}
	stdout, _, code = runCLI(t, "", "policies", "--source", "testdata/compose/resetpolicy.hcl", "--tests")
	if want, _ := os.ReadFile("testdata/compose/resetpolicy.test.hcl"); code != 0 || stdout != string(want) {
		t.Errorf("--source FILE --tests: exit %d", code)
	}
	stdout, _, code = runCLI(t, "", "policies", "--source", "testdata/compose/resetpolicy.hcl")
	if code != 0 || !strings.Contains(stdout, "# replaced by testdata/compose/resetpolicy.hcl:28:1") {
		t.Errorf("--source FILE: exit %d", code)
	}
	stdout, _, code = runCLI(t, "", "policies", "--json", "testdata/compose/resetpolicy.hcl")
	var got []policyJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 0 {
		t.Fatalf("--json: exit %d %v\n%s", code, err, stdout)
	}
	if len(got) != 1 || got[0].Uses != "wipe_memory" || got[0].Rules[len(got[0].Rules)-1].Origin != "added" {
		t.Errorf("--json: %+v", got)
	}
}

// test finds the test files under .pi (the project layout the README
// shows), and says so when there is nothing to run.
func TestTestFindsProjectTestsAndSaysWhenNothingRuns(t *testing.T) {
	dir := t.TempDir()
	pi := filepath.Join(dir, ".pi")
	if err := os.MkdirAll(pi, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"resetpolicy.hcl", "resetpolicy.test.hcl"} {
		b, _ := os.ReadFile(filepath.Join("testdata/project", name))
		if err := os.WriteFile(filepath.Join(pi, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := runCLI(t, "", "test", "-v", dir)
	if code != 0 || !strings.Contains(stdout, "--- PASS: resetpolicy.test.hcl/the warning goes out at reserve + 20000") {
		t.Errorf("test DIR with .pi: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "", "check", dir)
	if code != 0 || !strings.Contains(stdout, "resetpolicy.hcl: ok") {
		t.Errorf("check DIR with .pi: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, "", "test", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "no test files (*.test.hcl) under") {
		t.Errorf("no test files: exit %d %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "test", "-run", "nothing-matches-this", "testdata/project")
	if code != 1 || !strings.Contains(stderr, `no tests to run: -run "nothing-matches-this" matches no run`) {
		t.Errorf("-run matching nothing: exit %d %q", code, stderr)
	}
}

// check takes a bare directory name as the directory, and a name that is
// neither a file nor a built-in is a usage error with the closest built-in.
func TestCheckDirectoryAndMisspeltBuiltin(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "check", "policies")
	if code != 0 || !strings.Contains(stdout, "policies/wipe_memory.hcl: ok") || !strings.Contains(stdout, "policies/autocompacter.hcl: ok") {
		t.Errorf("check policies: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, "", "check", "wipe_memroy")
	if code != 2 || !strings.Contains(stderr, `"wipe_memroy" is neither a file nor a built-in policy; did you mean "wipe_memory"?`) {
		t.Errorf("check wipe_memroy: exit %d %q", code, stderr)
	}
	for _, args := range [][]string{{"check", "missing.hcl"}, {"test", "missing.test.hcl"}, {"eval", "--policy", "missing.hcl"}, {"policies", "missing.hcl"}, {"simulate", "--scenario", "missing.scenario.hcl"}} {
		if _, stderr, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (a missing file is a usage error)\n%s", args, code, stderr)
		}
	}
}

// A scenario's policy path is relative to the scenario file, and one that
// cannot be read is reported at the scenario's line.
func TestScenarioPolicyIsRelativeToTheScenario(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "scenarios")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("testdata/project/resetpolicy.hcl")
	if err := os.WriteFile(filepath.Join(sub, "team.hcl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := func(policy string) string {
		path := filepath.Join(sub, "s.scenario.hcl")
		text := "scenario \"x\" {\n  policy = \"" + policy + "\"\n}\n\nuser \"Hi.\" {}\n\nassistant {\n  text   = \"Hello.\"\n  tokens = 1000\n}\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	stdout, stderr, code := runCLI(t, "", "simulate", "--scenario", scenario("team.hcl"))
	if code != 0 || !strings.Contains(stdout, "Hello.") {
		t.Errorf("a policy beside the scenario: exit %d\n%s%s", code, stdout, stderr)
	}
	path := scenario("nothere.hcl")
	_, stderr, code = runCLI(t, "", "simulate", "--scenario", path)
	if code != 1 || !strings.Contains(stderr, path+":2:12: error: Cannot read policy file") || !strings.Contains(stderr, `the scenario's policy "nothere.hcl"`) {
		t.Errorf("a missing scenario policy: exit %d\n%s", code, stderr)
	}
}

// Params that depend on each other: an override that breaks a default's
// validation is blamed, with the param it conflicts with, never the
// built-in's line; the eval --help example runs.
func TestDependentParamsBlameTheOverride(t *testing.T) {
	_, stderr, code := runCLI(t, "", "eval", "--policy", "autocompacter", "--set", "force_limit=150000")
	if code != 1 || strings.Contains(stderr, "policies/autocompacter.hcl") ||
		!strings.Contains(stderr, `force_limit = 150000 (--set) conflicts with param "warning_limit", left at its default 220000: warning_limit must be below force_limit.`) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(path, []byte("use \"autocompacter\" {\n  force_limit = 150000\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ = runCLI(t, "", "check", path)
	if !strings.Contains(stderr, path+":2:17: error: Conflicting param values") {
		t.Errorf("check of a use file:\n%s", stderr)
	}
	root := newRoot(nil, nil, nil)
	eval, _, _ := root.Find([]string{"eval"})
	for _, line := range strings.Split(eval.Example, "\n") {
		if !strings.Contains(line, "--policy autocompacter") {
			continue
		}
		args := strings.Fields(strings.TrimSpace(line))
		args = args[1 : len(args)-2] // without "resetpolicy" and "< events.jsonl"
		if _, stderr, code := runCLI(t, `{"event":"turn_end"}`, args...); code != 0 {
			t.Errorf("%s: exit %d\n%s", line, code, stderr)
		}
	}
}

// A user-level param is scoped: a project on a policy that does not declare
// it gets a warning naming both, and its policy loads. A project's own
// unknown param stays an error. config --project of a missing directory is
// a usage error.
func TestUserParamsAreScopedAndConfigProjectMustExist(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if err := os.MkdirAll(filepath.Join(cfg, "resetpolicy"), 0o755); err != nil {
		t.Fatal(err)
	}
	userCfg := filepath.Join(cfg, "resetpolicy", "config.yaml")
	if err := os.WriteFile(userCfg, []byte("params:\n  warning_runway: 9000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".pi"), 0o755)
	os.WriteFile(filepath.Join(project, ".pi", "resetpolicy.yaml"), []byte("policy: autocompacter\n"), 0o644)
	stdout, stderr, code := runCLI(t, "", "config", "--project", project)
	if code != 0 || !strings.Contains(stdout, "params in force (policy autocompacter)") ||
		!strings.Contains(stderr, `warning: Param not in this policy`) ||
		!strings.Contains(stderr, `user config `+userCfg+` sets param "warning_runway", which policy "autocompacter" does not declare; it is ignored for this policy`) {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	os.WriteFile(filepath.Join(project, ".pi", "resetpolicy.yaml"), []byte("policy: autocompacter\nparams:\n  no_such: 1\n"), 0o644)
	if _, stderr, code := runCLI(t, "", "config", "--project", project); code != 1 || !strings.Contains(stderr, "Unknown param") {
		t.Errorf("a project's unknown param: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "config", "--project", filepath.Join(project, "nothere")); code != 2 || !strings.Contains(stderr, "no such directory") {
		t.Errorf("config --project of a missing directory: exit %d %q", code, stderr)
	}
}

// Dead parts are warnings; -Werror makes them errors.
func TestCheckWarnsDeadPartsAndWerror(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.hcl")
	if err := os.WriteFile(path, []byte("use \"wipe_memory\" {}\n\nmessage \"orphan\" {\n  text = \"never sent\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "check", path)
	if code != 0 || !strings.Contains(stdout, ": ok") || !strings.Contains(stderr, path+`:3:1: warning: Unused message`) {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, "", "check", "-Werror", path)
	if code != 1 || !strings.Contains(stderr, path+`:3:1: error: Unused message`) {
		t.Errorf("check -Werror: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "check", "-Werror"); code != 0 {
		t.Errorf("the built-ins have dead parts:\n%s", stderr)
	}
}

// The compose example replaces the one rule that sends the built-in's
// tool_off: that is not the file's warning, so -Werror passes.
func TestWerrorOfTheComposedExamplePasses(t *testing.T) {
	out, errOut, code := runCLI(t, "", "check", "-Werror", "testdata/compose/resetpolicy.hcl")
	if code != 0 || strings.Contains(errOut, "policies/wipe_memory.hcl") {
		t.Errorf("check -Werror: exit %d\n%s%s", code, out, errOut)
	}
}
