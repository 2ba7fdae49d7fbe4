package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A path that does not exist is a usage error, exit 2, with the same
// message for every command.
func TestMissingPathIsAUsageError(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fmt", "nope"}, "nope: no such file or directory"},
		{[]string{"fmt", "-check", "nope"}, "nope: no such file or directory"},
		{[]string{"test", "nope"}, "nope: no such file or directory"},
		{[]string{"check", "nope.hcl"}, "nope.hcl: no such file or directory"},
		{[]string{"test", "nope.test.hcl"}, "nope.test.hcl: no such file or directory"},
		{[]string{"verify", "nope.hcl"}, "nope.hcl: no such file or directory"},
		{[]string{"graph", "nope.hcl"}, "nope.hcl: no such file or directory"},
		{[]string{"eval", "--state", "/missing"}, "--state /missing: no such file or directory"},
		{[]string{"eval", "--policy", "nope.hcl"}, "nope.hcl: no such file or directory"},
		{[]string{"simulate", "--scenario", "nope.scenario.hcl"}, "nope.scenario.hcl: no such file"},
		{[]string{"replay", "nope"}, "nope: no such file or directory"},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(t, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%v: exit %d, want 2 with %q and nothing on stdout; stderr %q, stdout %q", tt.args, code, tt.want, errOut, out)
		}
	}
}

// fmt -diff prints the changes as a unified diff and writes nothing.
func TestFmtDiff(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	src := "policy \"p\" {\ndescription=\"x\"\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "fmt", "-diff", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"--- " + file + ".orig", "+++ " + file, "-description=\"x\"", "+  description = \"x\""} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != src {
		t.Errorf("fmt -diff wrote the file: %q", b)
	}
	if _, _, code := runCLI(t, "", "fmt", "-diff", "-check", file); code != 1 {
		t.Errorf("fmt -diff -check on an unformatted file: exit %d, want 1", code)
	}
	if out, _, code := runCLI(t, "", "fmt", "-diff", "policies"); code != 0 || out != "" {
		t.Errorf("fmt -diff on formatted files: exit %d, %q", code, out)
	}
}

// A --set typo is the flag's fault, not the scenario's policy line's; a
// --compare typo names --compare.
func TestOverrideTyposBlameTheirFlag(t *testing.T) {
	_, errOut, code := runCLI(t, "", "simulate", "--scenario", "testdata/scenarios/autocompacter_force.scenario.hcl", "--set", "force_limt=1")
	if code != 1 || !strings.Contains(errOut, `--set force_limt=1: policy "autocompacter" has no param "force_limt"; did you mean "force_limit"?`) || strings.Contains(errOut, "scenario's policy") {
		t.Errorf("simulate --set typo: exit %d, %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "simulate", "--scenario", "testdata/scenarios/autocompacter_force.scenario.hcl", "--policy", "wipe_memroy")
	if code != 2 || !strings.Contains(errOut, `did you mean "wipe_memory"?`) {
		t.Errorf("simulate --policy typo: exit %d, %s", code, errOut)
	}
	for _, args := range [][]string{
		{"replay", "testdata/sessions/pi-faux-read.jsonl", "--compare", "warning_runwya=1,2"},
		{"replay", "testdata/sessions/pi-faux-read.jsonl", "--policy", "wipe_memory", "--compare", "warning_runwya=1,2"},
	} {
		_, errOut, code = runCLI(t, "", args...)
		if code != 1 || !strings.Contains(errOut, `--compare warning_runwya=1: policy "wipe_memory" has no param "warning_runwya"; did you mean "warning_runway"?`) {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

// Every unknown name gets the closest known one (agext/levenshtein).
func TestDidYouMeanEverywhere(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "a.test.hcl")
	if err := os.WriteFile(tf, []byte("policy = \"wipe_memroy\"\n\nrun \"x\" {\n  event \"request\" {}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"policies", "--source", "wipe_mem"}, "", `"wipe_mem" is neither a file nor a built-in policy; did you mean "wipe_memory"?`},
		{[]string{"test", tf}, "", `there is no built-in policy "wipe_memroy"; did you mean "wipe_memory"?`},
		{[]string{"eval", "-q"}, `{"event":"turn_ed"}`, `unknown event "turn_ed"; did you mean "turn_end"?`},
		{[]string{"eval", "-q"}, `{"event":"turn_end","tokns":1}`, `has no fact "tokns"; did you mean "tokens"?`},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(t, tt.stdin, tt.args...)
		if code == 0 || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%v: exit %d, want %q in\n%s%s", tt.args, code, tt.want, out, errOut)
		}
	}
}

// replay of a missing path says so alone: no policy header on stdout, the
// message every command gives; with no path it says what it needs and
// points at its own help.
func TestReplayMissingPath(t *testing.T) {
	out, errOut, code := runCLI(t, "", "replay", "/nope")
	if code != 2 || out != "" || errOut != "resetpolicy: /nope: no such file or directory\n" {
		t.Errorf("replay /nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "", "replay")
	if code != 2 || out != "" || !strings.Contains(errOut, "needs a session file") || !strings.Contains(errOut, "'resetpolicy replay --help'") {
		t.Errorf("replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "", "report", "--sessions", "/nope", "wipe_memory")
	if code != 2 || !strings.Contains(errOut, "--sessions: /nope: no such file or directory") {
		t.Errorf("report --sessions /nope: exit %d, stderr %q", code, errOut)
	}
}

// cobra's own refusals point at the help of the command that refused.
func TestArgErrorPointsAtTheCommandsHelp(t *testing.T) {
	_, errOut, code := runCLI(t, "", "contract", "extra")
	if code != 2 || !strings.Contains(errOut, "Run 'resetpolicy contract --help' for usage.") {
		t.Errorf("contract extra: exit %d, stderr %q", code, errOut)
	}
}
