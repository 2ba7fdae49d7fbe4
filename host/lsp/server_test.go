package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

func change(c *client, uri string, version int, changes ...map[string]any) {
	c.notif("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
}

func edit(startLine, startChar, endLine, endChar int, text string) map[string]any {
	return map[string]any{"range": map[string]any{
		"start": map[string]any{"line": startLine, "character": startChar},
		"end":   map[string]any{"line": endLine, "character": endChar}}, "text": text}
}

// TestDidChangeDebounced: incremental changes typed in a burst are checked
// once, after the pause; a misspelt fact inside an expression string gets
// check's did-you-mean, and fixing it clears the diagnostics.
func TestDidChangeDebounced(t *testing.T) {
	c := newClient(t, Options{Debounce: 400 * time.Millisecond})
	uri, text := readFixture(t, "policy.hcl")
	c.open(uri, text)
	if d := c.diagnostics(uri, 1); len(d) != 0 {
		t.Fatalf("fixture: %v", d)
	}
	line := -1
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, `when = "event.tokens > 0"`) {
			line = i
		}
	}
	col := strings.Index(strings.Split(text, "\n")[line], "tokens")
	// "tokens" -> "tokenz" in three keystrokes: delete s, type z, type nothing.
	change(c, uri, 2, edit(line, col+5, line, col+6, ""))
	change(c, uri, 3, edit(line, col+5, line, col+5, "z"))
	change(c, uri, 4, edit(line, col+6, line, col+6, ""))
	got := c.diagnostics(uri, 4)
	// The rule is on request and turn_end: check reports the fact on each.
	if len(got) != 2 || !strings.Contains(got[0].Message, `event request has no fact "tokenz"; did you mean "tokens"?`) || !strings.Contains(got[1].Message, "event turn_end") {
		t.Fatalf("diagnostics %v, want a did-you-mean per event", got)
	}
	if got[0].Range.Start.Line != protocol.UInteger(line) || got[0].Range.Start.Character != protocol.UInteger(col) {
		t.Errorf("at %v, want %d:%d", got[0].Range.Start, line, col)
	}
	c.mu.Lock()
	for _, p := range c.diags[uri] {
		if v := int(*p.Version); v == 2 || v == 3 {
			t.Errorf("version %d was checked: the burst should be checked once", v)
		}
	}
	c.mu.Unlock()
	change(c, uri, 5, edit(line, col+5, line, col+6, "s"))
	if d := c.diagnostics(uri, 5); len(d) != 0 {
		t.Errorf("after the fix: %v", d)
	}
	c.shutdown()
}

func TestTextPositions(t *testing.T) {
	tx := newText([]byte("a😀b\r\nçd\n"))
	for _, tc := range []struct {
		line, char, off int
	}{
		{0, 0, 0}, {0, 1, 1}, {0, 3, 5}, {0, 4, 6}, {0, 99, 6}, // past the end: the line's end, before \r\n
		{1, 0, 8}, {1, 1, 10}, {1, 2, 11}, {2, 0, 12}, {9, 0, 12},
	} {
		p := protocol.Position{Line: protocol.UInteger(tc.line), Character: protocol.UInteger(tc.char)}
		if got := tx.offset(p); got != tc.off {
			t.Errorf("offset(%d:%d) = %d, want %d", tc.line, tc.char, got, tc.off)
		}
	}
	if p := tx.position(5); p.Line != 0 || p.Character != 3 {
		t.Errorf("position(5) = %v, want 0:3 (the emoji is two UTF-16 units)", p)
	}
	if got := string(tx.apply(protocol.Range{Start: protocol.Position{Line: 0, Character: 1}, End: protocol.Position{Line: 0, Character: 3}}, "-")); got != "a-b\r\nçd\n" {
		t.Errorf("apply: %q", got)
	}
}

// TestFormatting: the edit gives fmt's result; a document that does not
// parse gets no edit, as fmt leaves such a file unchanged.
func TestFormatting(t *testing.T) {
	c := newClient(t, Options{})
	for _, tc := range []struct {
		name, text string
		edits      int
	}{
		{"a.hcl", "slot \"x\" {\nvalues = [\"a\"]\n  description=\"d\"\n}\n", 1},
		{"b.hcl", "slot \"x\" {\n  values = [\"a\"]\n}\n", 0},
		{"c.hcl", "slot \"x\" {\nvalues = [\"a\"\n", 0},
		{"d.test.hcl", "policy=\"wipe_memory\"\n", 1},
	} {
		uri := fileURI(filepath.Join(t.TempDir(), tc.name))
		c.open(uri, tc.text)
		var edits []protocol.TextEdit
		c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
		if len(edits) != tc.edits {
			t.Errorf("%s: %d edits, want %d", tc.name, len(edits), tc.edits)
			continue
		}
		if tc.edits == 1 {
			if got, want := edits[0].NewText, string(hclwrite.Format([]byte(tc.text))); got != want {
				t.Errorf("%s: %q, want fmt's %q", tc.name, got, want)
			}
			if edits[0].Range.Start != (protocol.Position{}) || int(edits[0].Range.End.Line) != strings.Count(tc.text, "\n") {
				t.Errorf("%s: range %v, want the whole document", tc.name, edits[0].Range)
			}
		}
	}
}

func TestDocumentSymbols(t *testing.T) {
	c := newClient(t, Options{})
	uri, text := readFixture(t, "policy.hcl")
	c.open(uri, text)
	var syms []protocol.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
		for _, ch := range s.Children {
			names = append(names, "  "+ch.Name)
		}
	}
	want := []string{"policy tiny", "param budget", "slot request", "slot note", "derived left", "message ack", "tool reset",
		"group request", "  rule tool_marks_request", "  rule completed_turn_commits", "  rule request_sees_input",
		"property at most one reset per window"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("symbols\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if syms[1].SelectionRange.Start.Line != 10 || syms[1].Kind != protocol.SymbolKindConstant {
		t.Errorf("param symbol %+v", syms[1])
	}
}

// TestTestAndScenarioDiagnostics: a test file gets its own problems and
// what loading its policy with its overrides reports; a scenario its
// decoder's problems.
func TestTestAndScenarioDiagnostics(t *testing.T) {
	c := newClient(t, Options{})
	dir := t.TempDir()
	for i, tc := range []struct {
		name, text, want string
		line             int
	}{
		{"a.test.hcl", "policy = \"wipe_memory\"\nrun \"r\" {\n  params = { warning_runwya = 1 }\n  event \"turn_end\" {}\n}\n", `has no param "warning_runwya"; did you mean "warning_runway"?`, 2},
		{"b.test.hcl", "policy = \"missing.hcl\"\nrun \"r\" {\n  event \"turn_end\" {}\n}\n", "Policy does not load", 0},
		{"c.test.hcl", "policy = \"wipe_memory\"\nrun \"r\" {\n  event \"turn_ends\" {}\n}\n", "turn_end", 2},
		{"d.scenario.hcl", "scenario \"s\" {}\nusr \"hi\" {}\n", "Unknown step", 1},
		{"e.test.hcl", "policy = \"wipe_memory\"\nrun \"r\" {\n  event \"turn_end\" {\n    expect {\n      rules = [\"no_such_rule\"]\n    }\n  }\n}\n", "Run fails", 4},
	} {
		uri := fileURI(filepath.Join(dir, tc.name))
		c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "hcl", "version": i + 1, "text": tc.text}})
		got := c.diagnostics(uri, i+1)
		found := false
		for _, d := range got {
			if strings.Contains(d.Message, tc.want) && int(d.Range.Start.Line) == tc.line {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: diagnostics %v, want %q on line %d", tc.name, got, tc.want, tc.line+1)
		}
	}
}

// TestTestFileSeesOpenPolicy: a test file's policy that is open is checked
// as the editor holds it, not as it is on disk.
func TestTestFileSeesOpenPolicy(t *testing.T) {
	c := newClient(t, Options{})
	dir := t.TempDir()
	policy := "policy \"p\" {}\nparam \"n\" {\n  type = number\n  default = 1\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.hcl"), []byte("policy \"p\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.open(fileURI(filepath.Join(dir, "p.hcl")), policy)
	uri := fileURI(filepath.Join(dir, "p.test.hcl"))
	c.open(uri, "policy = \"p.hcl\"\nparams = { n = 2 }\nrun \"r\" {\n  event \"turn_end\" {}\n}\n")
	if d := c.diagnostics(uri, 1); len(d) != 0 {
		t.Errorf("diagnostics %v: the open policy declares n", d)
	}
}

// TestBrokenDocumentsAnswer: documents cut anywhere get answers, not a
// dead server.
func TestBrokenDocumentsAnswer(t *testing.T) {
	_, text := readFixture(t, "policy.hcl")
	c := newClient(t, Options{})
	uri := fileURI(filepath.Join(t.TempDir(), "p.hcl"))
	c.open(uri, "")
	for i, cut := 0, 0; cut < len(text); i, cut = i+1, cut+97 {
		change(c, uri, i+2, map[string]any{"text": text[:cut] + "\"{[" + text[cut:] + "}"})
		for line := 0; line < 60; line += 7 {
			var raw json.RawMessage
			for _, m := range []string{"textDocument/completion", "textDocument/hover", "textDocument/definition"} {
				c.call(m, docPos(uri, line, line%13), &raw)
			}
		}
		var raw json.RawMessage
		c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &raw)
		c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &raw)
		c.diagnostics(uri, i+2)
	}
	c.shutdown()
}

// TestPanicIsAnError: a handler that panics answers with an LSP error and
// the server goes on.
func TestPanicIsAnError(t *testing.T) {
	s := New(Options{Debounce: -1})
	s.handler.TextDocumentHover = func(*glsp.Context, *protocol.HoverParams) (*protocol.Hover, error) { panic("boom") }
	c := connect(t, s)
	err := c.callErr("textDocument/hover", docPos("file:///x.hcl", 0, 0))
	var rpcErr *jsonrpc2.Error
	if !asRPCError(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInternalError || !strings.Contains(rpcErr.Message, "boom") {
		t.Fatalf("hover: %v, want an internal error", err)
	}
	var raw json.RawMessage
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///x.hcl"}}, &raw)
}

func asRPCError(err error, target **jsonrpc2.Error) bool {
	e, ok := err.(*jsonrpc2.Error)
	if ok {
		*target = e
	}
	return ok
}

// connect is newClient for a server made by the test.
func connect(t *testing.T, s *Server) *client {
	srv, cli := net.Pipe()
	c := dial(t, cli)
	go func() {
		defer close(c.done)
		_ = s.Run(context.Background(), srv)
		srv.Close()
	}()
	t.Cleanup(func() { c.conn.Close() })
	var res json.RawMessage
	c.call("initialize", map[string]any{"capabilities": map[string]any{}}, &res)
	uri := "file:///x.hcl"
	c.open(uri, "policy \"x\" {}\n")
	return c
}

// TestBounds: the loader's bounds hold for open documents, and at most as
// many diagnostics as check prints are published.
func TestBounds(t *testing.T) {
	c := newClient(t, Options{})
	dir := t.TempDir()
	big := fileURI(filepath.Join(dir, "big.hcl"))
	c.open(big, strings.Repeat("#\n", rules.MaxFileBytes/2+1))
	if d := c.diagnostics(big, 1); len(d) != 1 || !strings.HasPrefix(d[0].Message, "File too large") {
		t.Errorf("big: %v", d)
	}
	deep := fileURI(filepath.Join(dir, "deep.hcl"))
	c.open(deep, "x = "+strings.Repeat("[", rules.MaxNesting+1))
	if d := c.diagnostics(deep, 1); len(d) != 1 || !strings.HasPrefix(d[0].Message, "Nesting too deep") {
		t.Errorf("deep: %v", d)
	}
	var many strings.Builder
	many.WriteString("policy \"m\" {}\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&many, "slot \"s%d\" {\n  type = nope\n}\n", i)
	}
	m := fileURI(filepath.Join(dir, "many.hcl"))
	c.open(m, many.String())
	d := c.diagnostics(m, 1)
	if len(d) != rules.MaxDiagnosticsShown+1 || d[len(d)-1].Message != "and 10 more" {
		t.Errorf("many: %d diagnostics, last %q; want %d and \"and 10 more\"", len(d), d[len(d)-1].Message, rules.MaxDiagnosticsShown+1)
	}

}

// TestBuiltinWrittenOnDemand: nothing is written when the server starts or
// opens a document; a definition into a built-in writes its source once,
// read-only, under the cache directory.
func TestBuiltinWrittenOnDemand(t *testing.T) {
	cache := t.TempDir()
	c := newClient(t, Options{CacheDir: cache})
	uri, text := readFixture(t, "composed.hcl")
	c.open(uri, text)
	c.diagnostics(uri, 1)
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Fatalf("cache holds %v before any definition", entries)
	}
	var locs []protocol.Location
	c.call("textDocument/definition", docPos(uri, 3, 6), &locs)
	if len(locs) != 1 {
		t.Fatalf("definition: %v", locs)
	}
	path := nameOf(locs[0].URI)
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o444 || !strings.HasPrefix(path, cache) {
		t.Fatalf("built-in at %s: %v %v", path, info, err)
	}
	b, _ := os.ReadFile(path)
	src, _ := policies.Source("wipe_memory")
	if string(b) != string(src.Bytes) {
		t.Error("the written source is not the built-in's")
	}
	// A second server on the same cache finds the file in place.
	c2 := newClient(t, Options{CacheDir: cache})
	c2.open(uri, text)
	c2.call("textDocument/definition", docPos(uri, 3, 6), &locs)
	if len(locs) != 1 || nameOf(locs[0].URI) != path {
		t.Errorf("second definition %v, want %s", locs, path)
	}
}

// TestShutdown: after shutdown requests fail, and exit ends the session.
func TestShutdown(t *testing.T) {
	c := newClient(t, Options{})
	uri, text := readFixture(t, "policy.hcl")
	c.open(uri, text)
	c.diagnostics(uri, 1)
	var raw json.RawMessage
	c.call("textDocument/hover", docPos(uri, 5, 1), &raw)
	c.call("shutdown", nil, &raw)
	// LSP: after shutdown, requests fail with InvalidRequest.
	var rpcErr *jsonrpc2.Error
	if err := c.callErr("textDocument/hover", docPos(uri, 5, 1)); !asRPCError(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidRequest {
		t.Errorf("a request after shutdown: %v, want InvalidRequest", err)
	}
	c.notif("exit", nil)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("exit did not end the session")
	}
}

// TestExitBeforeShutdown: LSP asks for status 1 when exit comes without
// shutdown; Run says so.
func TestExitBeforeShutdown(t *testing.T) {
	srv, cli := net.Pipe()
	res := make(chan error, 1)
	go func() { res <- New(Options{}).Run(context.Background(), srv); srv.Close() }()
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(cli, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
	defer conn.Close()
	var raw json.RawMessage
	if err := conn.Call(context.Background(), "initialize", map[string]any{"capabilities": map[string]any{}}, &raw); err != nil {
		t.Fatal(err)
	}
	_ = conn.Notify(context.Background(), "exit", nil)
	select {
	case err := <-res:
		if err != ErrExitBeforeShutdown {
			t.Errorf("Run: %v, want ErrExitBeforeShutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("exit did not end the session")
	}
}

// TestFirstMessagesReachTheClient: messages handled before Run has stored
// the connection (jsonrpc2 starts reading at once) still publish what
// they must. The server's side is made here without Run, so the handler
// is all the server has to reach the client with.
func TestFirstMessagesReachTheClient(t *testing.T) {
	s := New(Options{Debounce: -1, CacheDir: t.TempDir()})
	srv, cli := net.Pipe()
	server := jsonrpc2.NewConn(context.Background(), newStream(srv), jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(discard{}))
	t.Cleanup(func() { server.Close() })
	c := dial(t, cli)
	t.Cleanup(func() { c.conn.Close() })
	var res json.RawMessage
	c.call("initialize", map[string]any{"capabilities": map[string]any{}}, &res)
	uri := "file:///first.hcl"
	c.open(uri, "policy \"p\" {}\ngroup \"g\" {\n  rule \"r\" {\n    on   = \"turn_end\"\n    when = \"event.tokenz > 0\"\n  }\n}\n")
	if d := c.diagnostics(uri, 1); len(d) != 1 || !strings.Contains(d[0].Message, `no fact "tokenz"`) {
		t.Errorf("diagnostics: %v", d)
	}
}
