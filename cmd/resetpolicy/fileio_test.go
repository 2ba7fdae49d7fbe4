package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every path the command line opens is a regular file: a FIFO given as an
// input or an output is refused with the reason at once, without waiting
// for the other end; a device is refused as an input.
func TestEveryPathTheCLIOpensRefusesFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			// A name used twice would skip every case: only a system
			// without FIFOs skips.
			if err == syscall.EEXIST {
				t.Fatalf("%s: two cases share a FIFO's name", name)
			}
			t.Skip("no FIFOs here:", err)
		}
		return p
	}
	// regular makes a regular file beside a FIFO made already.
	regular := func(name, _ string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("policy \"q\" {\n}\n"), 0o600)
		return p
	}
	session := "testdata/sessions/pi-faux-read.jsonl"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"eval --state FIFO", []string{"eval", "--state", fifo("state.json")}, "a FIFO, not a regular file"},
		{"eval --state device", []string{"eval", "--state", "/dev/zero"}, "a device, not a regular file"},
		{"replay FIFO", []string{"replay", fifo("s.jsonl")}, "a FIFO, not a regular file"},
		{"replay device", []string{"replay", "/dev/zero"}, "a device, not a regular file"},
		{"replay --pi-settings FIFO", []string{"replay", session, "--pi-settings", fifo("settings.json")}, "a FIFO, not a regular file"},
		{"replay --plot FIFO", []string{"replay", session, "--plot", fifo("plot.svg")}, "a FIFO, not a regular file"},
		{"simulate --scenario FIFO", []string{"simulate", "--scenario", fifo("x.scenario.hcl")}, "not a regular file"},
		{"simulate --out FIFO", []string{"simulate", "--out", fifo("out.jsonl")}, "a FIFO, not a regular file"},
		{"simulate --plot FIFO", []string{"simulate", "--plot", fifo("sim.svg")}, "a FIFO, not a regular file"},
		{"graph -o FIFO", []string{"graph", "wipe_memory", "-o", fifo("g.dot")}, "a FIFO, not a regular file"},
		{"graph -o device", []string{"graph", "wipe_memory", "-o", "/dev/null"}, "a device, not a regular file"},
		{"test --junit FIFO", []string{"test", "policies/wipe_memory.test.hcl", "--junit", fifo("junit.xml")}, "a FIFO, not a regular file"},
		{"report -o FIFO", []string{"report", "new_context", "--no-verify", "-o", fifo("r.html")}, "a FIFO, not a regular file"},
		{"report --sessions FIFO", []string{"report", "new_context", "--no-verify", "--sessions", fifo("report-s.jsonl"), "-o", regular("r2.html", "")}, "a FIFO, not a regular file"},
		{"check FIFO", []string{"check", fifo("p.hcl")}, "not a regular file"},
		{"fmt FIFO", []string{"fmt", "-check", fifo("f.hcl")}, "not a regular file"},
		{"policies --source --tests FIFO", []string{"policies", "--source", regular("q.hcl", fifo("q.test.hcl")), "--tests"}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				stdout, stderr string
				code           int
			}
			done := make(chan result, 1)
			go func() {
				o, e, code := runCLI(t, "", c.args...)
				done <- result{o, e, code}
			}()
			select {
			case r := <-done:
				if r.code == 0 || !strings.Contains(r.stdout+r.stderr, c.want) {
					t.Fatalf("exit %d; want an error with %q:\n%.600s\n%.600s", r.code, c.want, r.stdout, r.stderr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("blocked on the FIFO")
			}
		})
	}
}

// eval --state reads within MaxStateFile: /dev/zero is refused above, and
// a regular file one byte over the bound is refused before it is parsed.
func TestEvalStateIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	over := make([]byte, MaxStateFile+1)
	for i := range over {
		over[i] = ' '
	}
	copy(over, `{"phase": "idle"}`)
	if err := os.WriteFile(p, over, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "eval", "--state", p)
	if code != 1 || !strings.Contains(stderr, "16777216 bytes") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// At the bound it is read (and then judged as a snapshot).
	if err := os.WriteFile(p, over[:MaxStateFile], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ := runCLI(t, "", "eval", "--state", p); strings.Contains(stderr, "bytes, the limit") {
		t.Fatalf("at the bound: %s", stderr)
	}
	if MaxStateFile != 16<<20 {
		t.Fatalf("MaxStateFile is %d; the README says 16 MiB", MaxStateFile)
	}
}
