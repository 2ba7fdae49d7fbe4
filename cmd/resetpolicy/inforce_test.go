package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project writes a project whose policy file sets warning_runway, a user
// config that sets it too (and reminder_margin, which the project leaves
// alone) and an environment param, and moves into the project. It returns
// the repository root, for the fixtures the commands read.
func project(t *testing.T) (root string) {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, cfg := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".pi", "resetpolicy.hcl"), "use \"wipe_memory\" {\n  warning_runway = 20000\n}\n")
	write(filepath.Join(cfg, "resetpolicy", "config.yaml"), "params:\n  warning_runway: 9000\n  reminder_margin: 30000\n")
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("RESETPOLICY_PARAM_RESERVE_MARGIN", "5")
	t.Chdir(dir)
	return root
}

// The project's policy file wins over the user config param by param:
// warning_runway is the project's, reminder_margin (which the project
// does not set) the user's, and config says which user value is shadowed.
func TestConfigProjectOverUser(t *testing.T) {
	project(t)
	out, errOut, code := runCLI(t, "", "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"warning_runway   20000  ", "resetpolicy.hcl\n",
		"shadows warning_runway=9000 from user config ",
		"config.yaml (shadowed by ",
		"reminder_margin  30000  user config ",
		"reserve_margin   5      env RESETPOLICY_PARAM_RESERVE_MARGIN",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}
	// The policy's file is its value; its origin says the layer, without
	// the path a second time.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "policy ") && (strings.Count(line, "resetpolicy.hcl") != 1 || !strings.HasSuffix(line, "project policy")) {
			t.Errorf("policy line %q: want the file once, then its layer", line)
		}
	}
	out, _, _ = runCLI(t, "", "config", "--json")
	var doc struct {
		Resolved struct {
			Params []struct {
				Name     string
				Value    json.RawMessage
				Shadowed []struct{ Value, Origin string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	found := false
	for _, p := range doc.Resolved.Params {
		if p.Name == "warning_runway" {
			found = string(p.Value) == "20000" && len(p.Shadowed) == 1 && p.Shadowed[0].Value == "9000"
		}
	}
	if !found {
		t.Errorf("config --json does not show warning_runway 20000 shadowing 9000: %s", out)
	}
}

// Every command that takes a policy runs, with none named, the one Pi
// runs in the directory, and its header says so with each param's origin.
func TestCommandsRunThePolicyInForce(t *testing.T) {
	root := project(t)
	session := filepath.Join(root, "testdata", "sessions", "pi-faux-read.jsonl")
	wantHeader := func(t *testing.T, where, text string) {
		t.Helper()
		for _, want := range []string{
			"# policy wipe_memory from ", ".pi/resetpolicy.hcl [project policy]",
			"warning_runway=20000 (", "reminder_margin=30000 (user config ", "reserve_margin=5 (env RESETPOLICY_PARAM_RESERVE_MARGIN)",
			"shadowed: warning_runway=9000 (user config ",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: header lacks %q:\n%.600s", where, want, text)
			}
		}
	}
	tests := []struct {
		args   []string
		stderr bool // the header is on stderr: stdout is a machine format
	}{
		{[]string{"simulate"}, false},
		{[]string{"replay", session}, false},
		{[]string{"verify", "--depth", "2"}, false},
		{[]string{"check"}, false},
		{[]string{"eval"}, true},
		{[]string{"graph"}, true},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(t, `{"event":"request","tokens":100}`+"\n", tt.args...)
		if tt.args[0] != "verify" && code != 0 || code == 2 {
			t.Errorf("%v: exit %d: %s", tt.args, code, errOut)
		}
		text := out
		if tt.stderr {
			text = errOut
		}
		wantHeader(t, strings.Join(tt.args, " "), text)
	}
	// simulate ran with those values, not only named them.
	out, _, _ := runCLI(t, "", "simulate")
	if !strings.Contains(out, "policy    wipe_memory: reserve_margin=5 warning_runway=20000 reminder_margin=30000") {
		t.Errorf("simulate did not run the values in force:\n%.800s", out)
	}
	// --json says it too.
	out, _, _ = runCLI(t, "", "replay", session, "--json")
	if !strings.Contains(out, `"policy_in_force":{"name":"wipe_memory","source":"`) || !strings.Contains(out, `"shadowed":[{"value":"9000"`) {
		t.Errorf("replay --json lacks the policy in force: %.600s", out)
	}
	out, _, _ = runCLI(t, "", "check", "--json")
	if !strings.Contains(out, `"policy_in_force"`) {
		t.Errorf("check --json lacks the policy in force: %.600s", out)
	}
	// A policy a flag names is that policy and --set only.
	out, errOut, code := runCLI(t, "", "replay", session, "--policy", "new_context", "--set", "warning_runway=1000")
	if code != 0 || !strings.Contains(out, "# policy new_context (built-in) [flag --policy]; params: warning_runway=1000 (--set)\n") {
		t.Errorf("replay --policy: exit %d, %s%.400s", code, errOut, out)
	}
}

// A project policy file that fails to load fails the command (Pi keeps the
// built-in in force; a command says what is wrong).
func TestCommandsReportABrokenProjectPolicy(t *testing.T) {
	project(t)
	if err := os.WriteFile(filepath.Join(".pi", "resetpolicy.hcl"), []byte("use \"wipe_memroy\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "simulate")
	if code != 1 || !strings.Contains(errOut, `did you mean "wipe_memory"?`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
