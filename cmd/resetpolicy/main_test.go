package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// runCLI runs the command line from the repository root.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/resetpolicy -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	// Commands resolve the policy in force from the user config and the
	// environment too: the tests see neither the machine's config nor
	// its RESETPOLICY_* variables.
	cfg, err := os.MkdirTemp("", "resetpolicy-test-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "RESETPOLICY_") {
			os.Unsetenv(name)
		}
	}
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(cfg)
	os.Exit(code)
}
