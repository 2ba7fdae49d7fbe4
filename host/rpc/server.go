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
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/valyala/fastjson"
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
	// MaxSessions bounds the sessions kept; 0 means DefaultMaxSessions.
	MaxSessions int
	// MaxSessionBytes bounds their total size (names and states); 0
	// means DefaultMaxSessionBytes.
	MaxSessionBytes int
}

// Server serves one host. Its methods are called one request at a time,
// in order; it is not safe for concurrent use.
type Server struct {
	opts       Options
	cur        *loaded // the policy in force; nil before the first load
	sessions   *sessions
	dlog       *decisionLog
	projectDir string
	trusted    bool
	// host is the host the client said it is at initialize (Pi when it
	// said none): what of a policy it cannot do is checked at load.
	host *contract.Host
	// reused per request: the parser of request lines, the event decoder,
	// and buffers for the result, the id and other methods' params.
	parser fastjson.Parser
	dec    engine.Decoder
	out    []byte
	id     []byte
	params []byte
	// logCounts counts log lines by kind (see logf); evicted is reused
	// for the names a request evicts.
	logCounts map[string]int
	evicted   []string
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
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionBytes <= 0 {
		opts.MaxSessionBytes = DefaultMaxSessionBytes
	}
	return &Server{opts: opts, sessions: newSessions(opts.MaxSessions, opts.MaxSessionBytes)}
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
	// The line is validated strictly, then parsed once; the decide path
	// reads the event from the parsed tree without copying it.
	if fastjson.ValidateBytes(line) != nil {
		return appendResponse(b, nil, nil, errorf(CodeParseError, "parse error: not valid JSON"))
	}
	v, err := s.parser.ParseBytes(line)
	if err != nil {
		return appendResponse(b, nil, nil, errorf(CodeParseError, "parse error: not valid JSON"))
	}
	if v.Type() == fastjson.TypeArray {
		return s.handleBatch(b, v)
	}
	return s.handleOne(b, v)
}

func (s *Server) handleBatch(b []byte, v *fastjson.Value) []byte {
	items, _ := v.Array()
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

// handleOne answers one request object.
func (s *Server) handleOne(b []byte, v *fastjson.Value) []byte {
	o, err := v.Object()
	if err != nil {
		return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "a request must be a JSON object"))
	}
	var jsonrpc, id, method, params *fastjson.Value
	o.Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "jsonrpc":
			jsonrpc = v
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		}
	})
	var rawID []byte
	if id != nil {
		switch id.Type() {
		case fastjson.TypeString, fastjson.TypeNumber, fastjson.TypeNull:
		default:
			return appendResponse(b, nil, nil, errorf(CodeInvalidRequest, "id must be a string, a number or null"))
		}
		s.id = id.MarshalTo(s.id[:0])
		rawID = s.id
	}
	if jsonrpc == nil || jsonrpc.Type() != fastjson.TypeString || string(jsonrpc.GetStringBytes()) != "2.0" {
		return s.reply(b, rawID, nil, errorf(CodeInvalidRequest, `jsonrpc must be "2.0"`), true)
	}
	if method == nil || method.Type() != fastjson.TypeString {
		return s.reply(b, rawID, nil, errorf(CodeInvalidRequest, "method must be a string"), true)
	}
	if params != nil {
		switch params.Type() {
		case fastjson.TypeObject, fastjson.TypeArray, fastjson.TypeNull:
		default:
			return s.reply(b, rawID, nil, errorf(CodeInvalidRequest, "params must be an object or an array"), true)
		}
	}
	result, rerr := s.call(method.GetStringBytes(), params)
	return s.reply(b, rawID, result, rerr, false)
}

// reply writes the response unless the request was a notification (an
// invalid request is answered even without an id).
func (s *Server) reply(b []byte, id, result json.RawMessage, rerr *Error, invalid bool) []byte {
	if id == nil && !invalid {
		return b
	}
	return appendResponse(b, id, result, rerr)
}

// call runs a method, turning a panic into an internal error. decide reads
// its params from the parsed request; the other methods, which are not on
// the hot path, get them as JSON text.
func (s *Server) call(name []byte, params *fastjson.Value) (result json.RawMessage, rerr *Error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.opts.Log, "resetpolicy serve: internal error in %s: %v\n%s", name, r, debug.Stack())
			result, rerr = nil, errorf(CodeInternalError, "internal error in %s", name)
		}
	}()
	if string(name) == "decide" {
		return s.decide(params)
	}
	m, ok := methods[string(name)]
	if !ok {
		return nil, errorf(CodeMethodNotFound, "method not found: %q", name)
	}
	var raw json.RawMessage
	if params != nil {
		s.params = params.MarshalTo(s.params[:0])
		raw = s.params
	}
	return m(s, raw)
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
