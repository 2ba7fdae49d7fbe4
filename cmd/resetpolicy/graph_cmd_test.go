package main

import (
	"strings"
	"testing"
)

func TestGraphCmd(t *testing.T) {
	out, errOut, code := runCLI(t, "", "graph", "new_context", "--slot", "attempt")
	if code != 0 || !strings.HasPrefix(out, "digraph policy {") || !strings.Contains(out, `"running" -> "confirmed"`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = runCLI(t, "", "graph", "new_context", "--format", "mermaid")
	if code != 0 || strings.Count(out, "stateDiagram-v2") != 2 {
		t.Errorf("mermaid, one diagram per enum slot (exit %d):\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "graph", "new_context", "--slot", "attempt", "--format", "svg")
	if code != 0 || !strings.Contains(out, "<svg") {
		t.Errorf("svg (exit %d): %.200s", code, out)
	}
	for _, args := range [][]string{
		{"graph", "new_context", "--format", "gif"},
		{"graph", "new_context", "--slot", "attempt_id"},
		{"graph", "a", "b"},
	} {
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
