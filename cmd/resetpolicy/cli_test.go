package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, _, code := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(stdout, "resetpolicy ") || !strings.Contains(stdout, runtime.Version()) ||
			!strings.Contains(stdout, "github.com/resetpolicy/resetpolicy") || !strings.Contains(stdout, "host contract 1") {
			t.Errorf("%v: exit %d %q", args, code, stdout)
		}
	}
	stdout, _, _ := runCLI(t, "", "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Go != runtime.Version() || v.Contract != "1" || v.Version == "" {
		t.Errorf("version --json: %v %+v", err, v)
	}
}

func TestCheckAndTestJSON(t *testing.T) {
	stdout, _, code := runCLI(t, "", "check", "--json", "testdata/invalid/unknown_fact.hcl", "wipe_memory")
	var checks []checkJSON
	if err := json.Unmarshal([]byte(stdout), &checks); err != nil || code != 1 || len(checks) != 2 {
		t.Fatalf("check --json: exit %d %v\n%s", code, err, stdout)
	}
	if checks[0].OK || checks[0].Diagnostics[0].Line != 31 || !checks[1].OK || checks[1].Policy != "wipe_memory" {
		t.Errorf("check --json: %+v", checks)
	}
	// The help says what the output is: one array, not a stream of objects.
	if help, _, _ := runCLI(t, "", "check", "--help"); !strings.Contains(help, "print one JSON array") {
		t.Errorf("check --help does not say --json prints one array:\n%s", help)
	}
	stdout, _, code = runCLI(t, "", "test", "--json", "--coverage", "testdata/compose")
	var rep struct {
		Results []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"results"`
		Coverage []struct {
			Policy  string   `json:"policy"`
			Unfired []string `json:"unfired"`
		} `json:"coverage"`
		Passed, Failed int
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("test --json: exit %d %v\n%s", code, err, stdout)
	}
	if rep.Passed != 3 || rep.Failed != 0 || len(rep.Results) != 3 || len(rep.Coverage) != 1 || len(rep.Coverage[0].Unfired) != 0 {
		t.Errorf("test --json: %+v", rep)
	}
	stdout, _, code = runCLI(t, "", "test", "--json", "testdata/testrun/_fail/broken.test.hcl")
	if code != 1 || !strings.Contains(stdout, `"passed": false`) || !strings.Contains(stdout, `"want":`) {
		t.Errorf("test --json of failures: exit %d\n%s", code, stdout)
	}
}

// Colour goes to a terminal only: never into a pipe, a buffer or a file,
// never under NO_COLOR.
func TestColourOnlyOnATerminal(t *testing.T) {
	stdout, stderr, _ := runCLI(t, "", "check", "testdata/invalid/unknown_fact.hcl", "wipe_memory")
	if strings.Contains(stdout+stderr, "\x1b[") {
		t.Errorf("escape codes in piped output:\n%q", stdout+stderr)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorFor(f, os.Getenv) || colorFor(&bytes.Buffer{}, os.Getenv) {
		t.Error("a file or a buffer gets colour")
	}
	t.Setenv("NO_COLOR", "")
	if colorFor(os.Stdout, os.Getenv) {
		t.Error("NO_COLOR is set, yet colour")
	}
	var b bytes.Buffer
	cw := &colorWriter{w: &b}
	cw.Write([]byte("x.hcl:1:2: error: Unknown fact\n--- FAIL: a/b (policy)\n--- PASS: a/c\nx: ok (policy p: 1 param)\n2 passed, 1 fai"))
	cw.Write([]byte("led\n3 passed, 0 failed"))
	cw.Flush()
	want := "x.hcl:1:2: " + red.Sprint("error") + ": Unknown fact\n--- " + red.Sprint("FAIL") + ": a/b (policy)\n--- " + green.Sprint("PASS") +
		": a/c\nx: " + green.Sprint("ok") + " (policy p: 1 param)\n2 passed, " + red.Sprint("1 failed") + "\n3 passed, 0 failed"
	if b.String() != want {
		t.Errorf("painted\n%q\nwant\n%q", b.String(), want)
	}
}

// Shell completion completes built-in names, the params after --set and
// scenario files.
func TestShellCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "check", "wip"}, "wipe_memory\n"},
		{[]string{"__complete", "eval", "--policy", "auto"}, "autocompacter\n"},
		{[]string{"__complete", "eval", "--set", "warn"}, "warning_runway=\t"},
		{[]string{"__complete", "eval", "--policy", "autocompacter", "--set", "force_l"}, "force_limit=\t"},
		{[]string{"__complete", "simulate", "--scenario", "testdata/scenarios/wipe_memory_direct"}, "testdata/scenarios/wipe_memory_direct_wipe.scenario.hcl\n"},
	} {
		stdout, _, code := runCLI(t, "", tc.args...)
		if code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%v: exit %d\n%s", tc.args, code, stdout)
		}
	}
	if stdout, _, _ := runCLI(t, "", "__complete", "simulate", "--scenario", "testdata/scenarios/wipe_memory_direct"); strings.Contains(stdout, ".timeline") {
		t.Errorf("a timeline offered as a scenario:\n%s", stdout)
	}
	if stdout, _, code := runCLI(t, "", "completion", "bash"); code != 0 || !strings.Contains(stdout, "resetpolicy") {
		t.Errorf("completion bash: exit %d", code)
	}
}

// simulate keeps its columns aligned whatever the label, prints texts whole
// with --wide, and marks the derived values the fired rules read.
func TestSimulateLayout(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "simulate", "--scenario", "testdata/scenarios/autocompacter_settings.scenario.hcl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	col := -1
	for _, l := range lines {
		if !strings.HasPrefix(l, "turn win event") {
			continue
		}
		col = strings.Index(l, "tokens") + len("tokens")
	}
	n := 0
	for _, l := range lines {
		if len(l) < 9 || l[4] != ' ' || !strings.HasPrefix(l[5:], "w") || strings.HasPrefix(l, "turn") {
			continue
		}
		n++
		if len(l) < col || l[col-1] < '0' || l[col-1] > '9' || l[col] != ' ' {
			t.Errorf("tokens column not at %d: %q", col, l)
		}
	}
	if n < 10 || col < 0 {
		t.Fatalf("%d event lines, header at %d", n, col)
	}
	stdout, _, _ = runCLI(t, "", "simulate")
	if !strings.Contains(stdout, "{warning_due=true*}  budget_warning_staged_once_per_window") {
		t.Errorf("no mark of the derived value the warning rule read:\n%s", stdout)
	}
	if strings.Contains(stdout, `notify(warning, "`+warningNotice(t)+`")`) {
		t.Error("the notice is whole without --wide")
	}
	stdout, _, _ = runCLI(t, "", "simulate", "--wide")
	if !strings.Contains(stdout, `notify(warning, "`+warningNotice(t)+`")`) {
		t.Errorf("--wide does not print the notice whole:\n%s", stdout)
	}
}

func warningNotice(t *testing.T) string {
	p, diags := loadPolicy("wipe_memory", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	m, _ := p.Message("warning_notice")
	return strings.Join(strings.Fields(m.Text), " ")
}
