package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var errorMarker = regexp.MustCompile(`#\s*ERROR:\s*(.+?)\s*$`)

// TestInvalidPolicies checks every file in testdata/invalid: `check` exits
// 1, prints exactly the golden diagnostic, and the diagnostic points at the
// line marked `# ERROR: SUMMARY` (a comment alone on its line marks the
// line after it).
func TestInvalidPolicies(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.hcl*")
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".golden") {
			cases = append(cases, f)
		}
	}
	if len(cases) < 15 {
		t.Fatalf("testdata/invalid holds %d cases; want at least 15", len(cases))
	}
	for _, f := range cases {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", "check", f)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			golden(t, f+".golden", stderr)
			line, summary := marker(t, f)
			if line == 0 {
				return // the JSON form has no comments
			}
			want := f + ":" + strconv.Itoa(line) + ":"
			first := strings.SplitN(stderr, "\n", 2)[0]
			if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, "error: "+summary) {
				t.Errorf("first diagnostic %q, want %s…: error: %s", first, want, summary)
			}
		})
	}
}

func marker(t *testing.T, path string) (int, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	found, line, summary := 0, 0, ""
	for i, l := range strings.Split(string(b), "\n") {
		if m := errorMarker.FindStringSubmatch(l); m != nil {
			found++
			line, summary = i+1, m[1]
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				line++
			}
		}
	}
	if found > 1 {
		t.Fatalf("%s has %d ERROR markers; one case per file", path, found)
	}
	return line, summary
}

func TestCheckBuiltins(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "check", "wipe_memory", "new_context", "autocompacter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		if !strings.Contains(stdout, name+": ok") {
			t.Errorf("check output lacks %s: %s", name, stdout)
		}
	}
	if _, _, code := runCLI(t, "", "check", "policies/wipe_memory.hcl"); code != 0 {
		t.Errorf("check policies/wipe_memory.hcl exit %d", code)
	}
}

func TestCheckSetOverrides(t *testing.T) {
	_, stderr, code := runCLI(t, "", "check", "wipe_memory", "--set", "warning_runway=lots")
	if code != 1 || !strings.Contains(stderr, `--set warning_runway=lots: param "warning_runway" is number`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "check", "wipe_memory", "--set", "warning_runwya=1")
	if code != 1 || !strings.Contains(stderr, `has no param "warning_runwya"; did you mean "warning_runway"?`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code = runCLI(t, "", "check", "wipe_memory", "--set", "nonsense"); code != 2 {
		t.Errorf("malformed --set: exit %d, want 2 (%s)", code, stderr)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"eval", "--no-such-flag"}, {"eval", "extra-arg"}} {
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// check --host names what of a policy the host cannot do: a warning at
// each rule (an error with -Werror), and an error for a policy whose
// hosts leave the host out; an unknown host is a usage error.
func TestCheckHost(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "check", "--host", "opencode", "wipe_memory")
	if code != 0 || !strings.Contains(stdout, "wipe_memory: ok") ||
		!strings.Contains(stderr, "policies/wipe_memory.hcl:") || !strings.Contains(stderr, "warning: Rule never fires on opencode") {
		t.Errorf("wipe_memory on opencode: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "check", "--host", "opencode", "-Werror", "wipe_memory"); code != 1 || !strings.Contains(stderr, "error: Rule never fires on opencode") {
		t.Errorf("-Werror: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "check", "--host", "opencode", "new_context"); code != 1 || !strings.Contains(stderr, `error: Policy not for this host`) {
		t.Errorf("new_context on opencode: exit %d\n%s", code, stderr)
	}
	if stdout, stderr, code := runCLI(t, "", "check", "new_context"); code != 0 || stderr != "" || !strings.Contains(stdout, "new_context: ok") {
		t.Errorf("new_context on Pi: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "check", "--host", "opnecode", "wipe_memory"); code != 2 || !strings.Contains(stderr, `did you mean "opencode"?`) {
		t.Errorf("unknown host: exit %d\n%s", code, stderr)
	}
}

// A policy that injects or resets without declaring a decision kind loads,
// with a warning at its first such effect; -Werror makes it an error.
func TestCheckWarnsOfUndeclaredKinds(t *testing.T) {
	const f = "testdata/check/undeclared_kinds.hcl"
	stdout, stderr, code := runCLI(t, "", "check", f)
	if code != 0 || !strings.Contains(stdout, f+": ok") || !strings.Contains(stderr, f+":13:12: warning: No decision kinds declared") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "check", "-Werror", f); code != 1 || !strings.Contains(stderr, "error: No decision kinds declared") {
		t.Errorf("check -Werror: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		if _, stderr, code := runCLI(t, "", "check", "-Werror", name); code != 0 {
			t.Errorf("check -Werror %s: exit %d\n%s", name, code, stderr)
		}
	}
}
