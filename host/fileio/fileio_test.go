package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f takes more than a few seconds: a FIFO that
// blocks would hang here.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked")
	}
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	return p
}

func wantNotRegular(t *testing.T, err error, kind string) {
	t.Helper()
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Kind != kind || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err %v; want %s refused", err, kind)
	}
}

func TestInputsAreRegularFilesWithinTheirLimit(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("12345"), 0o600)
	b, err := ReadInput(ok, 5)
	if err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	_, err = ReadInput(ok, 4)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 4 {
		t.Fatalf("over the limit: %v", err)
	}
	_, err = ReadInput(filepath.Join(dir, "missing"), 4)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	_, err = ReadInput(dir, 4)
	wantNotRegular(t, err, "a directory")
	within(t, func() {
		_, err = ReadInput("/dev/zero", 4)
		wantNotRegular(t, err, "a device")
	})
	p := fifo(t)
	within(t, func() {
		_, err = ReadInput(p, 4)
		wantNotRegular(t, err, "a FIFO")
	})
}

// A file that grows after the size check is still cut at the limit.
func TestInputIsCutAtTheLimitWhileReading(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o600)
	in, err := OpenInput(p, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	os.WriteFile(p, []byte("abcdefghij"), 0o600)
	b, err := io.ReadAll(in)
	var tl *TooLargeError
	if !errors.As(err, &tl) || len(b) != 5 {
		t.Fatalf("read %q, %v; want 5 bytes and the limit", b, err)
	}
}

// Standard input is read as it is, a pipe included, within the limit: an
// endless pipe ends at the limit. It is named "-" or by a path such as
// /dev/fd/N that is standard input.
func TestStandardInputIsBounded(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		chunk := bytes.Repeat([]byte("{}\n"), 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	defer w.Close()
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()
	for _, name := range []string{Stdin, fmt.Sprintf("/dev/fd/%d", r.Fd())} {
		within(t, func() {
			b, err := ReadInput(name, 1<<20)
			var tl *TooLargeError
			if !errors.As(err, &tl) || len(b) != 1<<20 {
				t.Errorf("%s: read %d bytes, %v; want the limit", name, len(b), err)
			}
		})
	}
	// Another pipe that is not standard input is a FIFO, refused.
	r2, w2, _ := os.Pipe()
	defer r2.Close()
	defer w2.Close()
	_, err = ReadInput(fmt.Sprintf("/dev/fd/%d", r2.Fd()), 10)
	wantNotRegular(t, err, "a FIFO")
}

func TestOutputsAreRegularFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := WriteOutput(p, []byte("long content"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteOutput(p, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "short" || st.Mode().Perm() != 0o640 {
		t.Fatalf("rewritten: %q %v; want truncated, mode kept", b, st.Mode().Perm())
	}
	wantNotRegular(t, WriteOutput(dir, nil, 0o600), "a directory")
	within(t, func() { wantNotRegular(t, WriteOutput("/dev/null", []byte("x"), 0o600), "a device") })
	f := fifo(t)
	// No reader: a blocking open would wait for one.
	within(t, func() { wantNotRegular(t, WriteOutput(f, []byte("x"), 0o600), "a FIFO") })
	// With a reader the open succeeds; fstat refuses it all the same.
	rd, err := os.OpenFile(f, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	within(t, func() { wantNotRegular(t, WriteOutput(f, []byte("x"), 0o600), "a FIFO") })
}
