package main

import (
	"strings"
	"testing"
)

func TestPoliciesListsParamsWithDefaults(t *testing.T) {
	stdout, _, code := runCLI(t, "", "policies")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"wipe_memory (default)", "warning_runway", "= 12288", "reminder_margin", "= 24576", "new_context", "autocompacter", "retry_delays_ms", "[5000, 10000, 20000]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("policies output lacks %q", want)
		}
	}
	stdout, _, code = runCLI(t, "", "policies", "--source", "wipe_memory")
	if code != 0 || !strings.Contains(stdout, `policy "wipe_memory"`) {
		t.Errorf("--source: exit %d", code)
	}
	if _, stderr, code := runCLI(t, "", "policies", "--source", "wipe-memory"); code != 2 || !strings.Contains(stderr, `did you mean "wipe_memory"? (built-ins: autocompacter, new_context, wipe_memory)`) {
		t.Errorf("--source of an unknown built-in: exit %d %q", code, stderr)
	}
}
