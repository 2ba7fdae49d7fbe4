package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/resetpolicy/resetpolicy/rules"
)

// MaxMessageBytes bounds one LSP message: a whole document of
// rules.MaxFileBytes, JSON-escaped (a control character takes six bytes),
// with room for the envelope.
const MaxMessageBytes = 6*rules.MaxFileBytes + 1<<20

// maxHeaderLine bounds one header line (Content-Length, Content-Type).
const maxHeaderLine = 1024

// stream is jsonrpc2's ObjectStream over the client's bytes, within
// bounds. A message whose frame is whole but whose content is not a
// request or a response — a body that is not JSON (-32700), `null`, a
// batch, a body over MaxMessageBytes, an over-long header line (-32600) —
// is answered with an error (its id when one can be read, null otherwise)
// and skipped: the next message is read as usual. A frame that cannot be
// delimited — no Content-Length, one that is not a plain decimal number,
// a stream that ends inside a message — ends the connection, and Run
// returns a *FramingError saying why (the command prints it and exits
// with status 1).
type stream struct {
	r   *bufio.Reader
	wmu sync.Mutex // the connection's answers and the stream's own
	w   *bufio.Writer
	c   io.Closer

	mu    sync.Mutex
	fatal *FramingError
}

// FramingError is why the stream of messages could not be read on.
type FramingError struct{ Reason string }

func (e *FramingError) Error() string { return "malformed message: " + e.Reason }

func newStream(rwc io.ReadWriteCloser) *stream {
	return &stream{r: bufio.NewReader(rwc), w: bufio.NewWriter(rwc), c: rwc}
}

func (s *stream) Close() error { return s.c.Close() }

func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	if _, err := s.w.Write(data); err != nil {
		return err
	}
	return s.w.Flush()
}

// framingErr returns the error that ended reading, if it was one of
// framing.
func (s *stream) framingErr() *FramingError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}

func (s *stream) ReadObject(v any) error {
	for {
		body, bad, err := s.readFrame()
		if err != nil {
			var fe *FramingError
			if errors.As(err, &fe) {
				s.mu.Lock()
				s.fatal = fe
				s.mu.Unlock()
			}
			return err
		}
		id := json.RawMessage("null")
		if bad == nil {
			id, bad = decode(body, v)
		}
		if bad == nil {
			return nil
		}
		if err := s.WriteObject(errorAnswer{JSONRPC: "2.0", ID: id, Error: bad}); err != nil {
			return err
		}
	}
}

// errorAnswer is a JSON-RPC error response whose id may be null, which
// jsonrpc2.Response cannot say.
type errorAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc2.Error `json:"error"`
}

// decode reads a whole body into v, or says why it is no message: the id
// to answer with (null unless the body is an object with a number or
// string id) and the error.
func decode(body []byte, v any) (json.RawMessage, *jsonrpc2.Error) {
	null := json.RawMessage("null")
	if !json.Valid(body) {
		return null, &jsonrpc2.Error{Code: jsonrpc2.CodeParseError, Message: "the message is not JSON"}
	}
	switch t := bytes.TrimLeft(body, " \t\r\n"); {
	case t[0] == '[':
		return null, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "a batch is not a message of LSP"}
	case t[0] != '{':
		return null, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the message is not a JSON object"}
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil, nil
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &head) == nil && len(head.ID) > 0 && (head.ID[0] == '"' || head.ID[0] == '-' || head.ID[0] >= '0' && head.ID[0] <= '9') {
		null = head.ID
	}
	return null, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "not a request or a response: " + err.Error()}
}

// readFrame reads one message's headers and body. A frame that is whole
// but broken is consumed and returned as bad; err is io.EOF at a clean
// end, a *FramingError when the stream cannot be read on.
func (s *stream) readFrame() (body []byte, bad *jsonrpc2.Error, err error) {
	length := -1
	for first := true; ; first = false {
		line, long, err := s.readLine()
		if err == io.EOF && first {
			return nil, nil, io.EOF
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, nil, &FramingError{"the input ended inside a message's headers"}
		}
		if err != nil {
			return nil, nil, err
		}
		if long {
			bad = &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: fmt.Sprintf("a header line is longer than %d bytes", maxHeaderLine)}
			continue
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue
		}
		n, ok := parseLength(value)
		if !ok {
			return nil, nil, &FramingError{fmt.Sprintf("Content-Length %q is not a decimal number of bytes", strings.TrimSpace(value))}
		}
		if length >= 0 && n != length {
			return nil, nil, &FramingError{"two different Content-Length headers"}
		}
		length = n
	}
	if length < 0 {
		return nil, nil, &FramingError{"a message has no Content-Length header"}
	}
	if length > MaxMessageBytes {
		// The frame says where the message ends: skip it unread.
		if _, err := io.CopyN(io.Discard, s.r, int64(length)); err != nil {
			return nil, nil, ended(err)
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: fmt.Sprintf("a message of %d bytes exceeds the bound of %d", length, MaxMessageBytes)}, nil
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, nil, ended(err)
	}
	if bad != nil {
		return nil, bad, nil
	}
	if length == 0 {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeParseError, Message: "the message is empty"}, nil
	}
	return body, nil, nil
}

// ended is the error of a body cut short: a framing error when the input
// ended, the reading error otherwise (the connection was closed).
func ended(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &FramingError{"the input ended inside a message"}
	}
	return err
}

// readLine reads one header line ending in \r\n (or \n). A line longer
// than maxHeaderLine is read to its end but not kept (long is true). The
// input's end is io.EOF before the line's first byte, io.ErrUnexpectedEOF
// after it.
func (s *stream) readLine() (line string, long bool, err error) {
	var b []byte
	for n := 0; ; n++ {
		c, err := s.r.ReadByte()
		if err == io.EOF && n > 0 {
			return "", long, io.ErrUnexpectedEOF
		}
		if err != nil {
			return "", long, err
		}
		if c == '\n' {
			if long {
				return "", true, nil
			}
			return string(bytes.TrimSuffix(b, []byte{'\r'})), false, nil
		}
		if len(b) >= maxHeaderLine {
			long, b = true, b[:0]
		}
		if !long {
			b = append(b, c)
		}
	}
}

// parseLength reads a Content-Length value: decimal digits only (no sign,
// no spaces inside), at most 18 of them so that it cannot overflow.
func parseLength(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 18 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int(v[i]-'0')
	}
	return n, true
}
