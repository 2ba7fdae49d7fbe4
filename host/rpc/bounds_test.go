package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/rules"
)

// A trusted project's config of 60,000 unknown params: initialize answers
// within the extension's budget with a bounded reply — the diagnostics
// and the settings it lists are capped at rules.MaxDiagnosticsShown, the
// rest counted. It answered 6.4 MB after 9–14 s.
func TestInitializeWithManyParamsIsBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("params:\n")
	const n = 60_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  u%05d: %d\n", i, i)
	}
	os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, settings.ProjectConfigFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t)
	defer s.Close()
	start := cpu()
	r := call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true})
	el := cpu() - start
	var res InitializeResult
	ok(t, r, &res)
	if !res.Fallback || !strings.Contains(res.Error, "Unknown param") {
		t.Fatalf("want the built-in in force and a notice: %+v", res.Error)
	}
	if len(res.Diagnostics) != rules.MaxDiagnosticsShown+1 || res.Diagnostics[rules.MaxDiagnosticsShown].Summary != fmt.Sprintf("and %d more", n-rules.MaxDiagnosticsShown) {
		t.Fatalf("%d diagnostics, last %+v", len(res.Diagnostics), res.Diagnostics[len(res.Diagnostics)-1])
	}
	if len(res.Settings) != 2+MaxSettingsShown || res.SettingsMore != n-MaxSettingsShown {
		t.Fatalf("%d settings listed, %d more; want %d and %d", len(res.Settings), res.SettingsMore, 2+MaxSettingsShown, n-MaxSettingsShown)
	}
	if len(r.Result) > 64<<10 {
		t.Fatalf("reply of %d bytes", len(r.Result))
	}
	// The extension waits 10 s for a reply. CPU time, since the machine
	// may be shared: about 0.7 s here, 9 s or more before.
	if el > 3*time.Second {
		t.Fatalf("initialize took %v of CPU", el)
	}
	if MaxSettingsShown != 20 {
		t.Fatalf("MaxSettingsShown is %d; the README says 20", MaxSettingsShown)
	}
}

// cpu is the CPU time this process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A trusted project's policy of 40,000 rules over 12 two-valued enum
// slots (2.6 MB, within the loader's bounds): the engine's indexes cost a
// multiple of the rules (see engine.maxBuildPerRule), so initialize
// answers within the extension's 10 s. It took 16–20 s of CPU and 3.8 GB
// when every rule was listed under every state it matched.
func TestInitializeWithManyKeyedRulesIsBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("policy \"keyed\" {}\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\"]\n}\n", i)
	}
	b.WriteString("group \"g\" {\n")
	for i := 0; i < 40_000; i++ {
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"request\"\n    from = { s%d = \"a\" }\n  }\n", i, i%12)
	}
	b.WriteString("}\n")
	os.MkdirAll(filepath.Join(dir, ".pi"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".pi", "resetpolicy.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t)
	defer s.Close()
	start := cpu()
	r := call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true})
	el := cpu() - start
	var res InitializeResult
	ok(t, r, &res)
	if res.Fallback || res.Policy.Name != "keyed" {
		t.Fatalf("want the project's policy in force: %+v", res.Error)
	}
	// CPU time, since the machine may be shared: about 1 s here.
	if el > 5*time.Second {
		t.Fatalf("initialize took %v of CPU", el)
	}
}
