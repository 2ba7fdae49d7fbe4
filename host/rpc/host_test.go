package rpc

import (
	"strings"
	"testing"
)

// initialize with a host checks the policy for it: a policy that is not
// for the host is refused with the built-in default left in force and
// the reason said once; a policy that is gets one warning per rule that
// leans on what the host lacks, counted in hostGaps. An unknown host is
// the client's mistake.
func TestInitializeChecksThePolicyForTheHost(t *testing.T) {
	type result struct {
		Policy      PolicyInfo
		Fallback    bool
		Error       string
		Host        string
		HostGaps    int
		Diagnostics []Diagnostic
	}
	s := newTestServer(t)
	var r result
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": writeProject(t, "use \"new_context\" {}\n"), "trusted": true, "host": "opencode"}), &r)
	if !r.Fallback || r.Policy.Name != "wipe_memory" || !strings.Contains(r.Error, "is not for opencode") ||
		!strings.Contains(r.Error, `policy "new_context" runs on pi only`) {
		t.Errorf("new_context on opencode: %+v", r)
	}

	s = newTestServer(t)
	r = result{}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": writeProject(t, "use \"wipe_memory\" {}\n"), "trusted": true, "host": "opencode"}), &r)
	warnings := 0
	for _, d := range r.Diagnostics {
		if d.Severity == "warning" && strings.Contains(d.Summary, "on opencode") && d.File != "" && d.Line > 0 {
			warnings++
		}
	}
	if r.Fallback || r.Error != "" || r.Host != "opencode" || r.HostGaps == 0 || warnings != r.HostGaps {
		t.Errorf("wipe_memory on opencode: %d positioned warnings, %+v", warnings, r)
	}

	s = newTestServer(t)
	r = result{}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": writeProject(t, "use \"new_context\" {}\n"), "trusted": true}), &r)
	if r.Fallback || r.Policy.Name != "new_context" || r.Host != "pi" || r.HostGaps != 0 || len(r.Diagnostics) != 0 {
		t.Errorf("new_context on Pi, the default host: %+v", r)
	}

	if e := call(t, s, "initialize", map[string]any{"host": "claude"}).Error; e == nil || e.Code != CodeInvalidParams || !strings.Contains(e.Message, `host "claude" is not a host`) {
		t.Errorf("unknown host: %+v", e)
	}
}
