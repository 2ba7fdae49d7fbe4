package sessionfile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// A session file is a regular file or standard input: a device or a FIFO
// is refused at once, and standard input that never ends is cut at the
// file bound like a file.
func TestSessionFilesAreRegularOrStandardInput(t *testing.T) {
	if _, err := sessionfile.ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "a device, not a regular file") {
		t.Fatalf("/dev/zero: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := sessionfile.ReadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
			t.Fatalf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}

	for _, name := range []string{"-", "/dev/stdin"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Close()
			w.Write([]byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}` + "\n"))
			line := bytes.Repeat([]byte(`{"type":"custom","id":"x","parentId":null,"timestamp":"2026-01-01T00:00:00Z"}`+"\n"), 64)
			for {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}()
		saved := os.Stdin
		os.Stdin = r
		if name == "/dev/stdin" {
			// /dev/stdin names the process's own descriptor 0, which a
			// test cannot replace: its file descriptor path stands in.
			name = "/dev/fd/" + strconv.Itoa(int(r.Fd()))
		}
		got := make(chan *sessionfile.File, 1)
		go func() {
			f, err := sessionfile.NewReader(sessionfile.Options{MaxFile: 1 << 20}).ReadFile(name)
			if err != nil {
				t.Error(err)
			}
			got <- f
		}()
		select {
		case f := <-got:
			if f == nil || !f.Truncated {
				t.Errorf("%s: an endless standard input was not cut at the bound", name)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: standard input read without end", name)
		}
		os.Stdin = saved
		r.Close()
	}
}
