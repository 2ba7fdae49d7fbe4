package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStartingWritesNothing runs the built binary's commands the way a
// host or a user starts them, with TMPDIR, HOME, XDG_CACHE_HOME and
// XDG_CONFIG_HOME each an empty directory, and requires every one to stay
// empty: starting a command writes nothing (a library that keeps a cache
// under the temporary directory at start-up, as the Graphviz runtime did,
// fails here).
func TestStartingWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dirs := map[string]string{}
	for _, k := range []string{"TMPDIR", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		dirs[k] = t.TempDir()
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := dirs[k]; !ours && !strings.HasPrefix(k, "RESETPOLICY_") {
			env = append(env, kv)
		}
	}
	for k, d := range dirs {
		env = append(env, k+"="+d)
	}
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"projectDir":"","trusted":false}}` + "\n"
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"version"}, "", ""},
		{[]string{"eval"}, `{"event":"turn_end","outcome":"completed","tokens":180000}` + "\n", `"event":"turn_end"`},
		{[]string{"serve", "--stdio"}, initialize, `"result"`},
		{[]string{"check"}, "", ""},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = env
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(c.stdin)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
		for k, d := range dirs {
			entries, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("%v wrote %s in %s (%s)", c.args, e.Name(), k, d)
			}
		}
		if entries, _ := os.ReadDir(cmd.Dir); len(entries) > 0 {
			t.Errorf("%v wrote %d entries in its working directory", c.args, len(entries))
		}
	}
}
