//go:build !nolsp

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func lspFrame(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// TestLSPCommand: `resetpolicy lsp` answers LSP on stdin/stdout, checks an
// opened policy as check does, and ends on exit with status 0; stdout
// carries only the protocol.
func TestLSPCommand(t *testing.T) {
	policy := "policy \"p\" {}\ngroup \"g\" {\n  rule \"r\" {\n    on   = \"turn_end\"\n    when = \"event.tokenz > 0\"\n  }\n}\n"
	in := lspFrame(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}}) +
		lspFrame(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}) +
		lspFrame(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
			"uri": "file:///project/p.hcl", "languageId": "hcl", "version": 1, "text": policy}}}) +
		lspFrame(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) +
		lspFrame(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	stdout, stderr, code := runCLI(t, in, "lsp", "--stdio")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var msgs []map[string]any
	for rest := stdout; rest != ""; {
		var n int
		if _, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &n); err != nil {
			t.Fatalf("stdout is not framed LSP: %q", rest)
		}
		body := rest[strings.Index(rest, "\r\n\r\n")+4:]
		var m map[string]any
		if err := json.Unmarshal([]byte(body[:n]), &m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
		rest = body[n:]
	}
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want initialize's result, diagnostics and shutdown's result: %v", len(msgs), msgs)
	}
	if !strings.Contains(fmt.Sprint(msgs[0]["result"]), "resetpolicy") {
		t.Errorf("initialize: %v", msgs[0])
	}
	if msgs[1]["method"] != "textDocument/publishDiagnostics" || !strings.Contains(fmt.Sprint(msgs[1]["params"]), `event turn_end has no fact "tokenz"; did you mean "tokens"?`) {
		t.Errorf("diagnostics: %v", msgs[1])
	}
	if msgs[2]["id"] != float64(2) {
		t.Errorf("shutdown: %v", msgs[2])
	}
}
