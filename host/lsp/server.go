package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Options configure a Server.
type Options struct {
	// Debounce is how long after the last change diagnostics are
	// published; 0 takes DefaultDebounce, a negative value publishes at
	// once.
	Debounce time.Duration
	// CacheDir is where built-in sources are written for go-to-definition
	// (default: os.UserCacheDir()).
	CacheDir string
	// Version is shown to the client as the server's version.
	Version string
	// Log, when set, receives one line per request that failed or panicked.
	Log io.Writer
}

// DefaultDebounce waits for a pause in typing before checking: long enough
// to skip most keystrokes, short enough to feel immediate.
const DefaultDebounce = 150 * time.Millisecond

// Server is one language server session: the open documents and the
// connection to the client.
type Server struct {
	opts    Options
	handler protocol.Handler

	mu     sync.Mutex
	docs   map[string]*document // by URI
	byName map[string]*document // by file path: a test file's policy
	timers map[string]*time.Timer
	conn   *jsonrpc2.Conn
	ctx    context.Context
	shut   bool
	exited bool

	// The check queue (check.go): documents waiting, in order from head,
	// each once; the check running per document; the checkers running.
	queue    []string
	head     int
	queued   map[string]bool
	checking map[string]*checkRun
	checkers int
	// checkHook, for tests, is called at each step of a check (before a
	// policy load or a test run) with the document and its version.
	checkHook func(uri string, version int32)

	builtinMu   sync.Mutex
	builtinURIs map[string]string
}

// New makes a server.
func New(opts Options) *Server {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	s := &Server{opts: opts, docs: map[string]*document{}, byName: map[string]*document{}, timers: map[string]*time.Timer{},
		queued: map[string]bool{}, checking: map[string]*checkRun{}}
	s.handler = protocol.Handler{
		Initialize:                 s.initialize,
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                   s.shutdown,
		Exit:                       func(*glsp.Context) error { return nil },
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:              func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:        s.didOpen,
		TextDocumentDidChange:      s.didChange,
		TextDocumentDidClose:       s.didClose,
		TextDocumentDidSave:        s.didSave,
		TextDocumentCompletion:     s.completion,
		TextDocumentHover:          s.hover,
		TextDocumentDefinition:     s.definition,
		TextDocumentReferences:     s.references,
		TextDocumentFormatting:     s.formatting,
		TextDocumentDocumentSymbol: s.documentSymbol,
	}
	return s
}

// Run serves one client on stream until it disconnects or sends exit.
// It returns ErrExitBeforeShutdown for an exit that no shutdown preceded,
// a *FramingError when the client's bytes could not be read as messages
// on (stream.go), and nil otherwise.
func (s *Server) Run(ctx context.Context, stream io.ReadWriteCloser) error {
	st := newStream(stream)
	conn := jsonrpc2.NewConn(ctx, st, jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(discard{}))
	s.mu.Lock()
	s.conn, s.ctx = conn, ctx
	s.mu.Unlock()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopChecks()
	if s.exited && !s.shut {
		return ErrExitBeforeShutdown
	}
	if fe := st.framingErr(); fe != nil && !s.exited {
		return fe
	}
	return nil
}

// ErrExitBeforeShutdown is Run's error when the client sent exit without
// shutdown first: LSP asks the server to end with status 1 then.
var ErrExitBeforeShutdown = errors.New("exit before shutdown")

type discard struct{}

func (discard) Printf(string, ...any) {}

// handle dispatches one message through glsp's protocol handler, under a
// recover: a handler that panics on a broken document answers with an
// internal error and the server goes on.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("panic in %s: %v\n%s", req.Method, r, debug.Stack())
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("resetpolicy lsp: %s failed: %v", req.Method, r)}
		}
	}()
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) },
		Call:   func(method string, params, result any) { _ = conn.Call(ctx, method, params, result) },
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	if req.Method == "exit" {
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		conn.Close()
		return nil, nil
	}
	s.mu.Lock()
	if s.conn == nil {
		// jsonrpc2.NewConn reads and handles messages before Run can
		// store the connection it returns: without this, diagnostics a
		// first didOpen published were dropped when the reading goroutine
		// ran ahead (TestFirstMessagesReachTheClient).
		s.conn, s.ctx = conn, ctx
	}
	shut := s.shut
	s.mu.Unlock()
	if shut && req.Method != protocol.MethodShutdown {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the server is shut down"}
	}
	r, validMethod, validParams, err := s.handler.Handle(gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		if e, ok := err.(*jsonrpc2.Error); ok {
			return nil, e
		}
		return nil, &jsonrpc2.Error{Code: codeRequestFailed, Message: err.Error()}
	}
	return r, nil
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "resetpolicy lsp: "+format+"\n", args...)
	}
}

func (s *Server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	caps := s.handler.CreateServerCapabilities()
	caps.TextDocumentSync = protocol.TextDocumentSyncOptions{
		OpenClose: &protocol.True,
		Change:    ptrTo(protocol.TextDocumentSyncKindIncremental),
		// A save checks the document again: a file it reads from disk
		// (a test file's policy that is not open) may have changed.
		Save: &protocol.SaveOptions{IncludeText: &protocol.False},
	}
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{".", "\"", "'"}}
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: caps,
		ServerInfo:   &protocol.InitializeResultServerInfo{Name: "resetpolicy", Version: &version},
	}, nil
}

func (s *Server) shutdown(*glsp.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shut = true
	s.stopChecks()
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// doc returns an open document, under s.mu.
func (s *Server) doc(uri string) (*document, error) {
	d, ok := s.docs[uri]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "document not open: " + uri}
	}
	return d, nil
}

// docByName finds an open document by its file path, under s.mu.
func (s *Server) docByName(name string) *document {
	return s.byName[name]
}

// openText is the text of an open document by file path, under s.mu.
func (s *Server) openText(path string) []byte {
	if d := s.docByName(path); d != nil && !d.dropped {
		return d.src()
	}
	return nil
}

// didOpen keeps the document and queues its check: the check runs on a
// checker, not on the goroutine that reads messages.
func (s *Server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.mu.Lock()
	name := nameOf(p.TextDocument.URI)
	d := &document{uri: p.TextDocument.URI, name: name, kind: kindOf(name), version: p.TextDocument.Version, openText: s.openText}
	d.setText([]byte(p.TextDocument.Text))
	if old := s.docs[d.uri]; old != nil {
		s.forget(old)
	}
	s.docs[d.uri] = d
	s.byName[name] = d
	s.mu.Unlock()
	s.schedule(d.uri, -1, true)
	return nil
}

// forget drops a document from the index by name, under s.mu.
func (s *Server) forget(d *document) {
	if s.byName[d.name] == d {
		delete(s.byName, d.name)
	}
}

func (d *document) setText(b []byte) {
	d.gen++
	if len(b) > maxDocBytes {
		d.text, d.dropped = nil, true
		return
	}
	d.text, d.dropped = newText(b), false
}

// didChange applies the edits of one change in one pass (edits.go) and
// queues the check after the debounce.
func (s *Server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	d.version = p.TextDocument.Version
	d.applyChanges(p.ContentChanges)
	s.mu.Unlock()
	s.schedule(d.uri, s.opts.Debounce, true)
	return nil
}

func (s *Server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.schedule(p.TextDocument.URI, -1, false)
	return nil
}

func (s *Server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	uri := p.TextDocument.URI
	if d := s.docs[uri]; d != nil {
		s.forget(d)
	}
	delete(s.docs, uri)
	if t, ok := s.timers[uri]; ok {
		t.Stop()
		delete(s.timers, uri)
	}
	if run := s.checking[uri]; run != nil {
		run.stale.Store(true)
	}
	s.notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return
	}
	// Notify only queues a write; the connection serialises it.
	_ = s.conn.Notify(s.ctx, method, params)
}

// codeRequestFailed is LSP's RequestFailed: the request was valid and
// failed (jsonrpc2 knows only JSON-RPC's own codes).
const codeRequestFailed = -32803
