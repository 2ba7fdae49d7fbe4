package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestServeStdio(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"projectDir":"","trusted":false}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"decide","params":{"session":"s","event":{"event":"tool","name":"wipe_memory"}}}`,
	}, "\n") + "\n"
	stdout, stderr, code := runCLI(t, in, "serve", "--stdio")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 responses on stdout, got:\n%s", stdout)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) || !strings.HasPrefix(l, `{"jsonrpc":"2.0"`) {
			t.Errorf("stdout carries something other than protocol: %q", l)
		}
	}
	if !strings.Contains(lines[1], "-32700") || !strings.Contains(lines[2], `"rules":["tool_request_marks_window"]`) {
		t.Errorf("responses: %s", stdout)
	}
}

func TestServeFlagsApply(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n"
	stdout, _, code := runCLI(t, in, "serve", "--stdio", "--policy", "new_context", "--set", "warning_runway=100")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout, `"name":"new_context"`) || !strings.Contains(stdout, `"origin":"flag --set"`) {
		t.Errorf("flags not in force: %s", stdout)
	}
}

func TestServeNeedsStdio(t *testing.T) {
	_, stderr, code := runCLI(t, "", "serve")
	if code != exitUsage || !strings.Contains(stderr, "--stdio") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestConfigShowsSources(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if err := os.MkdirAll(filepath.Join(cfg, "resetpolicy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "resetpolicy", "config.yaml"), []byte("params:\n  warning_runway: 9000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".pi"), 0o755)
	os.WriteFile(filepath.Join(project, ".pi", "resetpolicy.yaml"), []byte("params:\n  reserve_margin: 100\n"), 0o644)
	t.Setenv("RESETPOLICY_PARAM_REMINDER_MARGIN", "30000")
	stdout, stderr, code := runCLI(t, "", "config", "--project", project)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"policy", "wipe_memory", "default",
		"params.warning_runway", "9000", "user config " + filepath.Join(cfg, "resetpolicy", "config.yaml"),
		"params.reserve_margin", "project config " + filepath.Join(project, ".pi", "resetpolicy.yaml"),
		"params.reminder_margin", "env RESETPOLICY_PARAM_REMINDER_MARGIN",
		"params in force (policy wipe_memory)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("config output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runCLI(t, "", "config", "--project", project, "--untrusted", "--json")
	var doc struct {
		Settings []map[string]string `json:"settings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%s: %v", stdout, err)
	}
	for _, e := range doc.Settings {
		if strings.Contains(e["origin"], "project") {
			t.Errorf("untrusted config read the project: %v", e)
		}
	}
}

func TestConfigReportsBrokenPolicy(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	_, stderr, code := runCLI(t, "", "config", "--project", t.TempDir(), "--set", "no_such=1")
	if code != exitFailure || !strings.Contains(stderr, "no_such") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A command line that starts with serve runs under a root with serve
// alone, which must parse, fail and help as the whole root does.
func TestServeRootIsTheRootsServe(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"projectDir":"","trusted":false}}` + "\n"
	for _, args := range [][]string{
		{"serve", "--help"},
		{"serve", "-h"},
		{"serve"},
		{"serve", "extra"},
		{"serve", "--stdio", "--bogus"},
		{"serve", "--stdio", "-policy", "no_such_policy"},
		{"serve", "--stdio", "--set", "reserve=oops"},
		{"serve", "--version"},
		{"serve", "--stdio"},
	} {
		var outs [2]string
		var codes [2]int
		for i, root := range []func(io.Reader, io.Writer, io.Writer) *cobra.Command{newRoot, newServeRoot} {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			var out, errb bytes.Buffer
			codes[i] = execute(root(strings.NewReader(init), &out, &errb), args, &errb)
			outs[i] = out.String() + "\n--- stderr\n" + errb.String()
		}
		if outs[0] != outs[1] || codes[0] != codes[1] {
			t.Errorf("%q: the whole root (exit %d):\n%s\nthe serve root (exit %d):\n%s", args, codes[0], outs[0], codes[1], outs[1])
		}
		if args[len(args)-1] == "--stdio" && !strings.Contains(outs[0], `"result"`) {
			t.Errorf("%q: no answer: %s", args, outs[0])
		}
	}
	if got := len(newServeRoot(nil, io.Discard, io.Discard).Commands()); got != 1 {
		t.Errorf("the serve root has %d commands", got)
	}
}
