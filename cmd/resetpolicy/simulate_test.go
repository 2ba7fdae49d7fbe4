package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/session"
)

// With no arguments, simulate runs the built-in scenario on wipe_memory: a
// reminder, a close-out warning, a wipe_memory call and a reset that
// continues in a fresh window.
func TestSimulateDefault(t *testing.T) {
	out, errOut, code := runCLI(t, "", "simulate")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"policy    wipe_memory",
		"budget_reminder_staged_once_per_window  => inject(budget_reminder, request)",
		"budget_warning_staged_once_per_window, budget_warning_arms_automatic_close_out  => inject(checkpoint_warning, request)",
		"tool(wipe_memory)",
		"turn_end_commits_tool_request  => commit_reset(continue=true)",
		"compaction(retain-none, w2), marker(w2), boot(w2), continuation(w2)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("default timeline lacks %q", want)
		}
	}
	// The fresh window continues: a request in w2 after the reset.
	if !strings.Contains(out, " w2  request") {
		t.Error("no fresh-window continuation")
	}
	// The golden timeline is the simulator's (go test ./host/sim -update
	// writes it); the command prints exactly that after the line saying
	// which policy is in force.
	want, err := os.ReadFile(filepath.Join("testdata", "scenarios", "default.timeline"))
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(out, "\n")
	if header != "# policy wipe_memory (built-in) [default]; params: all defaults" {
		t.Errorf("header %q", header)
	}
	if out = rest; out != string(want) {
		t.Errorf("simulate differs from testdata/scenarios/default.timeline\n--- want\n%s\n--- got\n%s", want, out)
	}
}

// --out after two resets writes a Pi JSONL session whose raw history is
// intact and whose boundaries are in seed 000's order.
func TestSimulateOutAfterTwoResets(t *testing.T) {
	file := filepath.Join(t.TempDir(), "session.jsonl")
	out, errOut, code := runCLI(t, "", "simulate", "--scenario", "testdata/scenarios/wipe_memory_successive_resets.scenario.hcl", "--out", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "session written to "+file) {
		t.Errorf("output: %s", out)
	}
	s, err := session.ReadFile(file, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	if len(path) != len(s.Entries()) {
		t.Errorf("the raw branch holds %d of %d entries", len(path), len(s.Entries()))
	}
	var users []string
	for _, e := range path {
		if e.Role() == "user" {
			users = append(users, string(e.Message()))
		}
	}
	if len(users) != 1 || !strings.Contains(users[0], "Migrate the three services") {
		t.Errorf("the first prompt is kept: %v", users)
	}
	for _, w := range []string{"w2", "w3"} {
		if err := session.CheckCommitted(path, w); err != nil {
			t.Errorf("%s: %v", w, err)
		}
		for i, e := range path {
			if !session.IsMarker(e) || e.WindowID() != w {
				continue
			}
			c, boot, cont := path[i-1], path[i+1], path[i+2]
			if !session.IsTrustedCheckpoint(c) || c.FirstKeptEntryID() != c.ID() || !session.IsBoot(boot) || !session.IsContinuation(cont) {
				t.Errorf("%s: order compaction, marker, boot, continuation broken", w)
			}
		}
	}
	if p := session.Project(path); p.Mode != session.ModeCheckpoint || p.WindowID != "w3" {
		t.Errorf("projection %v of %s", p.Mode, p.WindowID)
	}
}

func TestSimulateFlags(t *testing.T) {
	// --set wins over the scenario and shows in the header.
	out, _, code := runCLI(t, "", "simulate", "--set", "warning_runway=20000")
	if code != exitOK || !strings.Contains(out, "warning_runway=20000") {
		t.Errorf("--set: exit %d\n%s", code, out)
	}
	// --policy overrides the scenario's policy.
	out, errOut, code := runCLI(t, "", "simulate", "--policy", "new_context", "--scenario", "testdata/scenarios/wipe_memory_direct_wipe.scenario.hcl")
	if code != exitOK || !strings.Contains(out, "policy    new_context") || !strings.Contains(out, "after 0 reset(s)") || errOut != "" {
		t.Errorf("--policy new_context on a wipe_memory scenario: exit %d\n%s\n%s", code, out, errOut)
	}
	// A bad scenario file: diagnostics with file:line:col, exit 1.
	bad := filepath.Join(t.TempDir(), "bad.scenario.hcl")
	if err := os.WriteFile(bad, []byte("assistant {\n  abort = \"maybe\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, "", "simulate", "--scenario", bad)
	if code != exitFailure || !strings.Contains(errOut, bad+":2:11: error: Invalid abort") {
		t.Errorf("bad scenario: exit %d\n%s", code, errOut)
	}
	// A bad --set: the policy's diagnostic, exit 1.
	_, errOut, code = runCLI(t, "", "simulate", "--set", "warning_runway=-5")
	if code != exitFailure || !strings.Contains(errOut, "warning_runway") {
		t.Errorf("bad --set: exit %d\n%s", code, errOut)
	}
	// Arguments are a usage error.
	_, _, code = runCLI(t, "", "simulate", "extra")
	if code != exitUsage {
		t.Errorf("extra argument: exit %d", code)
	}
}
