package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/policies"
)

func TestGraphCmd(t *testing.T) {
	out, errOut, code := runCLI(t, "", "graph", "new_context", "--slot", "attempt")
	if code != 0 || !strings.HasPrefix(out, "digraph policy {") || !strings.Contains(out, `"running" -> "confirmed" [label="compact_done"`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	p, diags := policies.Load("new_context", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	enums := 0
	for _, sl := range p.Slots {
		if sl.IsEnum() {
			enums++
		}
	}
	out, _, code = runCLI(t, "", "graph", "new_context", "--format", "mermaid")
	if code != 0 || enums < 2 || strings.Count(out, "stateDiagram-v2") != enums {
		t.Errorf("mermaid, one diagram per enum slot (exit %d):\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "graph", "new_context", "--slot", "attempt", "--format", "svg")
	if code != 0 || !strings.Contains(out, "<svg") || !strings.Contains(out, `class="state initial"`) {
		t.Errorf("svg (exit %d): %.200s", code, out)
	}
	out, _, code = runCLI(t, "", "graph", "new_context", "--slot", "attempt", "--format", "png")
	if code != 0 || !bytes.HasPrefix([]byte(out), []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("png (exit %d): %q", code, out[:min(len(out), 16)])
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

// Each bound stops graph with exit 1 and a message naming the flag that
// raises it; nothing is written.
func TestGraphBounds(t *testing.T) {
	product := []string{"graph", "wipe_memory", "--slot", "request", "--slot", "overflow", "--format", "svg"}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--max-states", "40"}, "bound of 40 states"},
		{[]string{"--max-nodes", "4"}, "more than 4 states; raise --max-nodes"},
		{[]string{"--max-edges", "4"}, "more than 4 edges; raise --max-edges"},
		{[]string{"--timeout", "1ms"}, "no diagram within 1ms (--timeout)"},
	} {
		out, errOut, code := runCLI(t, "", append(append([]string{}, product...), c.flags...)...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 1 and %q", c.flags, code, len(out), errOut, c.want)
		}
	}
}

// The README's limits table states graph's bounds: moving one fails here.
func TestGraphBoundsAreTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile("docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| %s states explored; %d states and %s edges a diagram; no time limit by default (`--timeout`, CPU time, when given);",
		thousands(graph.DefaultMaxStates), graph.DefaultMaxNodes, thousands(graph.DefaultMaxEdges))
	if !strings.Contains(string(readme), row) {
		t.Errorf("docs/limits.md's table lacks %q", row)
	}
	if f := newGraphCmd(nil).Flags().Lookup("timeout"); f == nil || f.DefValue != "0s" {
		t.Errorf("graph has a time limit by default: %v", f)
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
