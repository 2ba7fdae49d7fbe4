package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runTestCmd runs `resetpolicy test ARGS…` as the binary does and returns
// its output and exit code.
func runTestCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"test"}, args...), strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestTestCommand(t *testing.T) {
	const td = "testdata/testrun" // TestMain runs the tests from the repository root
	tests := []struct {
		name     string
		args     []string
		code     int
		last     string   // the last line of stdout, when set
		contains []string // in stdout
		absent   []string // not in stdout
	}{
		{"a passing file", []string{td + "/tiny.test.hcl"}, 0, "4 passed, 0 failed", nil, []string{"--- PASS"}},
		{"a directory skips _ fixtures", []string{td}, 0, "4 passed, 0 failed", nil, []string{"broken"}},
		{"a failing file", []string{td + "/_fail/broken.test.hcl"}, 1, "1 passed, 4 failed",
			[]string{"--- FAIL: broken.test.hcl/counts completed turns and commits at the limit (event 4 turn_end)\n", "      want: [\"finish\"]\n      got:  [\"count\"]\n"}, nil},
		{"an invalid file counts as a failure", []string{td + "/_invalid/unknown_fact.test.hcl"}, 1, "0 passed, 1 failed",
			[]string{"unknown_fact.test.hcl:5:5: error: Unknown fact"}, nil},
		{"-v lists passing runs", []string{"-v", td}, 0, "4 passed, 0 failed", []string{"--- PASS: tiny.test.hcl/a starting state skips ahead\n"}, nil},
		{"Go-style -run", []string{"-run", "starting state", td}, 0, "1 passed, 0 failed", nil, nil},
		{"-run=REGEXP", []string{"-run=params|starting", td}, 0, "2 passed, 0 failed", nil, nil},
		{"--run", []string{"--run", "^tiny.test.hcl/counts", td}, 0, "1 passed, 0 failed", nil, nil},
		{"--coverage", []string{"--coverage", td}, 0, "4 passed, 0 failed", []string{"coverage: tiny (" + td + "/tiny.hcl): 4 of 4 rules fired (100.0%)\n"}, nil},
		{"--coverage lists unfired rules", []string{"-coverage", "-run", "starting", td}, 0, "1 passed, 0 failed", []string{"1 of 4 rules fired", "    not fired: start\n"}, nil},
		{"bad regexp is a usage error", []string{"-run", "(", td}, 2, "", nil, nil},
		{"missing path is a usage error", []string{td + "/nope"}, 2, "", nil, nil},
		{"unknown flag is a usage error", []string{"--bogus", td}, 2, "", nil, nil},
		{"--help", []string{"--help"}, 0, "", []string{"Usage:", "-run"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runTestCmd(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if tt.last != "" && lastLine(out) != tt.last {
				t.Errorf("last line %q, want %q\n%s", lastLine(out), tt.last, out)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(out, s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestTestCommandJUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	_, _, code := runTestCmd(t, "--junit", path, "testdata/testrun/_fail/broken.test.hcl")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if doc.Tests != 5 || doc.Failures != 4 {
		t.Errorf("tests %d failures %d, want 5 and 4", doc.Tests, doc.Failures)
	}
}

// With no path, the built-ins' own test files run, once each even when the
// current directory holds the same files (the project's own tree).
func TestTestCommandDefaultPaths(t *testing.T) {
	t.Run("elsewhere", func(t *testing.T) {
		t.Chdir(t.TempDir())
		out, _, _ := runTestCmd(t, "-v")
		for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
			if !strings.Contains(out, "--- PASS: "+name+".test.hcl/") && !strings.Contains(out, "--- FAIL: "+name+".test.hcl/") {
				t.Errorf("no run of the built-in %s's tests:\n%s", name, out)
			}
		}
	})
	t.Run("in the project", func(t *testing.T) {
		out, _, _ := runTestCmd(t, "-v", "-run", `^wipe_memory\.test\.hcl/`)
		seen := map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "--- PASS: ") || strings.HasPrefix(line, "--- FAIL: ") {
				seen[line[len("--- PASS: "):]]++
			}
		}
		if len(seen) == 0 {
			t.Fatalf("no wipe_memory run:\n%s", out)
		}
		for name, n := range seen {
			if n > 1 {
				t.Errorf("%s ran %d times", name, n)
			}
		}
	})
}

// A test file's mistakes are told where they are and as what they are: an
// unknown param in a run's params at its name, a wanted value an enum slot
// cannot hold as such, and a policy file that does not exist at the
// policy attribute, with the file beside it that it may mean.
func TestTestFileMistakesAreToldAsSuch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("team.hcl", "use \"wipe_memory\" {}\n")
	a := write("a.test.hcl", `policy = "wipe_memory"

run "params" {
  params = { warning_runwy = 9000 }
  event "request" {}
}

run "state" {
  event "request" {}
  expect {
    state = { request = "nonee" }
  }
}
`)
	b := write("b.test.hcl", "policy = \"teem.hcl\"\n\nrun \"x\" {\n  event \"request\" {}\n}\n")
	out, _, _ := runCLI(t, "", "test", a, b)
	for _, want := range []string{
		"a.test.hcl:4:14: error: Unknown param",
		`"nonee" is not a value of slot request ("none", "close-out", "stop-pending", "tool-requested"); did you mean "none"?`,
		"b.test.hcl:1:10: policy:\n      error: No such policy file\n        teem.hcl: no such file or directory (a policy file is named relative to the test file); did you mean \"team.hcl\"?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "teem.hcl:1:1") {
		t.Errorf("a position in a file that does not exist:\n%s", out)
	}
}
