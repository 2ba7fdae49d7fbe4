//go:build !nolsp

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

func lspFrame(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// TestLSPCommand: `resetpolicy lsp` answers LSP on stdin/stdout, checks an
// opened policy as check does, and ends on exit with status 0; stdout
// carries only the protocol. It is driven as an editor drives it: the
// check runs off the read loop, so the client reads the diagnostics before
// it shuts the server down (a shutdown stops the checks still pending).
func TestLSPCommand(t *testing.T) {
	policy := "policy \"p\" {}\ngroup \"g\" {\n  rule \"r\" {\n    on   = \"turn_end\"\n    when = \"event.tokenz > 0\"\n  }\n}\n"
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"lsp", "--stdio"}, inR, outW, &stderr)
		outW.Close()
	}()
	send := func(v any) {
		if _, err := io.WriteString(inW, lspFrame(v)); err != nil {
			t.Fatal(err)
		}
	}
	out := bufio.NewReader(outR)
	read := func() map[string]any {
		t.Helper()
		var n int
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("reading a header: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if _, err := fmt.Sscanf(line, "Content-Length: %d", &n); err != nil {
				t.Fatalf("stdout is not framed LSP: %q", line)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(out, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	if m := read(); !strings.Contains(fmt.Sprint(m["result"]), "resetpolicy") {
		t.Errorf("initialize: %v", m)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": "file:///project/p.hcl", "languageId": "hcl", "version": 1, "text": policy}}})
	if m := read(); m["method"] != "textDocument/publishDiagnostics" || !strings.Contains(fmt.Sprint(m["params"]), `event turn_end has no fact "tokenz"; did you mean "tokens"?`) {
		t.Errorf("diagnostics: %v", m)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
	if m := read(); m["id"] != float64(2) {
		t.Errorf("shutdown: %v", m)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	inW.Close()
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("more on stdout after exit: %q", rest)
	}
	if code := <-done; code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
