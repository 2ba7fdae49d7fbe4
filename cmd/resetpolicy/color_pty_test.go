//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty returns both ends of a new pseudo-terminal, or skips.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// On a terminal the output is coloured, under NO_COLOR it is not.
func TestColourOnATerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "") // restored after the test
	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "xterm")
	for _, noColor := range []bool{false, true} {
		if noColor {
			t.Setenv("NO_COLOR", "1")
		}
		master, slave := openPty(t)
		code := run([]string{"check", "testdata/invalid/unknown_fact.hcl"}, strings.NewReader(""), slave, slave)
		if code != 1 {
			t.Fatalf("exit %d", code)
		}
		slave.Close()
		var got bytes.Buffer
		buf := make([]byte, 4096)
		master.SetReadDeadline(time.Now().Add(2 * time.Second))
		for {
			n, err := master.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				break
			}
		}
		hasColour := strings.Contains(got.String(), red.Sprint("error"))
		if hasColour == noColor {
			t.Errorf("NO_COLOR=%v: coloured=%v\n%q", noColor, hasColour, got.String())
		}
		if !strings.Contains(got.String(), "Invalid expression") {
			t.Errorf("nothing read from the terminal: %q", got.String())
		}
	}
}
