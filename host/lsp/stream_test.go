package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rawServer runs a server on a pipe whose client side the test writes
// bytes to and reads answers from, frame by frame.
type rawServer struct {
	t   *testing.T
	cli net.Conn
	r   *bufio.Reader
	res chan error
}

func newRawServer(t *testing.T) *rawServer {
	srv, cli := net.Pipe()
	rs := &rawServer{t: t, cli: cli, r: bufio.NewReader(cli), res: make(chan error, 1)}
	go func() {
		rs.res <- New(Options{Debounce: -1, CacheDir: t.TempDir()}).Run(context.Background(), srv)
		srv.Close()
	}()
	t.Cleanup(func() { cli.Close() })
	return rs
}

func (rs *rawServer) send(raw string) {
	rs.t.Helper()
	done := make(chan error, 1)
	go func() { _, err := io.WriteString(rs.cli, raw); done <- err }()
	select {
	case <-done:
	case err := <-rs.res:
		rs.t.Fatalf("the server ended while reading: %v", err)
	}
}

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// answer reads the next answer frame.
func (rs *rawServer) answer() map[string]any {
	rs.t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		n := -1
		for {
			line, err := rs.r.ReadString('\n')
			if err != nil {
				got <- nil
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			fmt.Sscanf(line, "Content-Length: %d", &n)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(rs.r, body); err != nil {
			got <- nil
			return
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		got <- m
	}()
	select {
	case m := <-got:
		if m == nil {
			rs.t.Fatal("no answer frame")
		}
		return m
	case <-time.After(hangWait):
		rs.t.Fatal("no answer")
	}
	return nil
}

// TestMalformedMessages: a message whose frame is whole but whose body is
// no request gets a JSON-RPC error (id null unless one can be read) and
// the server reads on; a frame that cannot be delimited ends Run with a
// FramingError that says why, which the command prints before exiting
// with status 1. Nothing ends the server silently.
func TestMalformedMessages(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		code      float64
		id        any
	}{
		{"not JSON", frame("{nope"), -32700, nil},
		{"null", frame("null"), -32600, nil},
		{"empty batch", frame("[]"), -32600, nil},
		{"batch", frame(`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`), -32600, nil},
		{"a number", frame("5"), -32600, nil},
		{"no method or result", frame(`{"jsonrpc":"2.0","id":7}`), -32600, 7.0},
		{"a method that is not a string", frame(`{"jsonrpc":"2.0","id":"x","method":5}`), -32600, "x"},
		{"empty body", "Content-Length: 0\r\n\r\n", -32700, nil},
		{"a header line over the bound", "X-Junk: " + strings.Repeat("x", 5000) + "\r\n" + frame(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`), -32600, nil},
		{"a body over the bound", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", MaxMessageBytes+1, strings.Repeat(" ", MaxMessageBytes+1)), -32600, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRawServer(t)
			rs.send(tc.raw)
			a := rs.answer()
			e, _ := a["error"].(map[string]any)
			if e == nil || e["code"] != tc.code || a["id"] != tc.id {
				t.Fatalf("answer %v, want code %v and id %v", a, tc.code, tc.id)
			}
			// The server reads on.
			rs.send(frame(`{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"capabilities":{}}}`))
			if a := rs.answer(); a["id"] != 99.0 || a["result"] == nil {
				t.Fatalf("the next request: %v", a)
			}
		})
	}
	for _, tc := range []struct{ name, raw, why string }{
		{"negative length", "Content-Length: -5\r\n\r\nxxxxx", "not a decimal number"},
		{"signed length", "Content-Length: +5\r\n\r\n{}   ", "not a decimal number"},
		{"length that is not a number", "Content-Length: five\r\n\r\n", "not a decimal number"},
		{"length past any int", "Content-Length: 99999999999999999999999\r\n\r\n", "not a decimal number"},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", "no Content-Length"},
		{"input ends inside the body", "Content-Length: 50\r\n\r\n{}", "ended inside a message"},
		{"input ends inside the headers", "Content-Len", "ended inside a message's headers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRawServer(t)
			go func() { _, _ = io.WriteString(rs.cli, tc.raw); _ = rs.cli.Close() }()
			select {
			case err := <-rs.res:
				var fe *FramingError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.why) {
					t.Fatalf("Run: %v, want a framing error saying %q", err, tc.why)
				}
			case <-time.After(hangWait):
				t.Fatal("the server did not end")
			}
		})
	}
	// A client that closes its end between messages ends the session
	// cleanly.
	rs := newRawServer(t)
	rs.send(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
	rs.answer()
	rs.cli.Close()
	select {
	case err := <-rs.res:
		if err != nil {
			t.Errorf("Run after a clean end: %v", err)
		}
	case <-time.After(hangWait):
		t.Fatal("the server did not end")
	}
}
