package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/settings"
)

// Options configure a Server.
type Options struct {
	// Settings loads the settings for a project; nil means settings.Load
	// with the process environment and no flags.
	Settings func(projectDir string, trusted bool) (*settings.Settings, error)
	// Now is the clock of the decision log; nil means time.Now.
	Now func() time.Time
	// Log receives log lines (policy diagnostics, decision log failures);
	// nil discards them. It is never the protocol writer.
	Log io.Writer
	// MaxLine bounds one request line; 0 means DefaultMaxLine.
	MaxLine int
}

// Server serves one host. Its methods are called one request at a time,
// in order; it is not safe for concurrent use.
type Server struct {
	opts       Options
	cur        *loaded // the policy in force; nil before the first load
	sessions   map[string]*engine.Session
	dlog       *decisionLog
	projectDir string
	trusted    bool
	out        []byte // reused result buffer
}

// New returns a server. The policy is loaded by initialize, or with the
// default settings by the first method that needs it.
func New(opts Options) *Server {
	if opts.Settings == nil {
		opts.Settings = func(dir string, trusted bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted})
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	return &Server{opts: opts, sessions: map[string]*engine.Session{}}
}

// Close releases the decision log.
func (s *Server) Close() error {
	if s.dlog != nil {
		err := s.dlog.Close()
		s.dlog = nil
		return err
	}
	return nil
}

// Serve reads requests from r and writes responses to w until r ends.
// EOF is a clean end (nil); a read or write failure is returned.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	lr := newLineReader(r, s.opts.MaxLine)
	bw := bufio.NewWriterSize(w, 64*1024)
	var resp []byte
	for {
		line, err := lr.next()
		switch {
		case errors.Is(err, io.EOF):
			return bw.Flush()
		case errors.Is(err, errLineTooLong):
			resp = appendResponse(resp[:0], nil, nil,
				errorf(CodeInvalidRequest, "request line exceeds %d bytes", s.opts.MaxLine))
		case err != nil:
			bw.Flush()
			return fmt.Errorf("read: %w", err)
		default:
			resp = s.handle(resp[:0], line)
		}
		if len(resp) == 0 {
			continue
		}
		resp = append(resp, '\n')
		if _, err := bw.Write(resp); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
}

// Handle answers one request line and returns the response line without
// its newline, or nil when nothing is to be answered (a notification or
// a blank line).
func (s *Server) Handle(line []byte) []byte {
	return s.handle(nil, line)
}

func (s *Server) handle(b []byte, line []byte) []byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return b
	}
	if line[0] == '[' {
		return s.handleBatch(b, line)
	}
	if !json.Valid(line) {
		return appendResponse(b, nil, nil, errorf(CodeParseError, "parse error: not valid JSON"))
	}
	return s.handleOne(b, line)
}

func (s *Server) handleBatch(b []byte, line []byte) []byte {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		if !json.Valid(line) {
			return appendResponse(b, nil, nil, errorf(CodeParseError, "parse error: not valid JSON"))
		}
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "invalid batch"))
	}
	if len(items) == 0 {
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "empty batch"))
	}
	start := len(b)
	b = append(b, '[')
	n := 0
	for _, it := range items {
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		before := len(b)
		b = s.handleOne(b, it)
		if len(b) == before {
			b = b[:mark] // a notification: nothing to add
			continue
		}
		n++
	}
	if n == 0 {
		return b[:start]
	}
	return append(b, ']')
}

// handleOne answers one request object (valid JSON).
func (s *Server) handleOne(b []byte, raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "a request must be a JSON object"))
	}
	var jsonrpc, id, method, params []byte
	if err := members(raw, func(k string, v []byte) error {
		switch k {
		case "jsonrpc":
			jsonrpc = v
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		}
		return nil
	}); err != nil {
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "invalid request: %v", err))
	}
	if id != nil && !validID(id) {
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "id must be a string, a number or null"))
	}
	if string(jsonrpc) != `"2.0"` {
		return s.reply(b, id, nil, errorf(CodeInvalidRequest, `jsonrpc must be "2.0"`), true)
	}
	name, err := unquote(method)
	if method == nil || err != nil {
		return s.reply(b, id, nil, errorf(CodeInvalidRequest, "method must be a string"), true)
	}
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && !bytes.Equal(params, nullID) {
		return s.reply(b, id, nil, errorf(CodeInvalidRequest, "params must be an object or an array"), true)
	}
	result, rerr := s.call(name, params)
	return s.reply(b, id, result, rerr, false)
}

// reply writes the response unless the request was a notification (an
// invalid request is answered even without an id).
func (s *Server) reply(b []byte, id, result json.RawMessage, rerr *Error, invalid bool) []byte {
	if id == nil && !invalid {
		return b
	}
	return appendResponse(b, id, result, rerr)
}

// call runs a method, turning a panic into an internal error.
func (s *Server) call(method string, params json.RawMessage) (result json.RawMessage, rerr *Error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.opts.Log, "resetpolicy serve: internal error in %s: %v\n%s", method, r, debug.Stack())
			result, rerr = nil, errorf(CodeInternalError, "internal error in %s", method)
		}
	}()
	m, ok := methods[method]
	if !ok {
		return nil, errorf(CodeMethodNotFound, "method not found: %q", method)
	}
	return m(s, params)
}

type method func(s *Server, params json.RawMessage) (json.RawMessage, *Error)

// methods is filled by the files that define them.
var methods = map[string]method{}

func marshal(v any) (json.RawMessage, *Error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errorf(CodeInternalError, "encode result: %v", err)
	}
	return b, nil
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "resetpolicy serve: "+format+"\n", args...)
}
