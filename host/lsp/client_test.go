package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// client drives a Server over a pipe with LSP messages, as an editor does;
// its side of the pipe uses jsonrpc2's own codec, so the server's bounded
// one is checked against the library's framing.
type client struct {
	t      *testing.T
	conn   *jsonrpc2.Conn
	done   chan struct{}
	mu     sync.Mutex
	diags  map[string][]protocol.PublishDiagnosticsParams
	notify chan struct{}
}

func newClient(t *testing.T, opts Options) *client {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	if opts.Debounce == 0 {
		opts.Debounce = -1
	}
	srv, cli := net.Pipe()
	s := New(opts)
	c := dial(t, cli)
	go func() {
		defer close(c.done)
		_ = s.Run(context.Background(), srv)
		srv.Close()
	}()
	t.Cleanup(func() {
		c.conn.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	var res protocol.InitializeResult
	c.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &res)
	if res.ServerInfo == nil || res.ServerInfo.Name != "resetpolicy" {
		t.Fatalf("initialize: server info %+v", res.ServerInfo)
	}
	c.notif("initialized", map[string]any{})
	return c
}

// dial is the editor's side of a pipe whose other end a server reads.
func dial(t *testing.T, cli net.Conn) *client {
	c := &client{t: t, done: make(chan struct{}), diags: map[string][]protocol.PublishDiagnosticsParams{}, notify: make(chan struct{}, 1000)}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(cli, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(c.handle))
	return c
}

func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(*req.Params, &p); err == nil {
			c.mu.Lock()
			c.diags[p.URI] = append(c.diags[p.URI], p)
			c.mu.Unlock()
			c.notify <- struct{}{}
		}
	}
	return nil, nil
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// callErr is call for a request expected to fail.
func (c *client) callErr(method string, params any) error {
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	var raw json.RawMessage
	return c.conn.Call(ctx, method, params, &raw)
}

func (c *client) notif(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) open(uri, text string) {
	c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "hcl", "version": 1, "text": text}})
}

// diagnostics waits for the diagnostics of a document's version.
func (c *client) diagnostics(uri string, version int) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.After(hangWait)
	for {
		c.mu.Lock()
		for _, p := range c.diags[uri] {
			if p.Version != nil && int(*p.Version) == version {
				c.mu.Unlock()
				return p.Diagnostics
			}
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s version %d", uri, version)
		}
	}
}

func (c *client) shutdown() {
	c.t.Helper()
	var raw json.RawMessage
	c.call("shutdown", nil, &raw)
	c.notif("exit", nil)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.t.Fatal("server did not exit")
	}
}

func readFixture(t *testing.T, name string) (string, string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileURI(path), string(b)
}

func docPos(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
}

// hangWait bounds every wait of these tests for an answer or a check: it
// only catches a hang, so it is far past what any answer takes on a loaded
// two-core machine, and no verdict depends on how busy the machine is.
const hangWait = 60 * time.Second
