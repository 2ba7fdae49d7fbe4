package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Versions the server speaks.
const (
	// ProtocolVersion is the version of this method set.
	ProtocolVersion = "1"
	// DefaultMaxLine bounds one request line (1 MiB).
	DefaultMaxLine = 1 << 20
)

// JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeDecisionFailed: the policy could not decide the event (an
	// expression failed at run time); the session's state is unchanged.
	CodeDecisionFailed = -32000
	// CodeFailed: a method could not be carried out (a file could not be
	// written, the project is not trusted).
	CodeFailed = -32001
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

var nullID = json.RawMessage("null")

// validID reports whether an id is a string, a number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case 'n':
		return bytes.Equal(id, nullID)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// appendResponse writes one response object.
func appendResponse(b []byte, id json.RawMessage, result json.RawMessage, rerr *Error) []byte {
	if id == nil {
		id = nullID
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	if rerr != nil {
		e, err := json.Marshal(rerr)
		if err != nil {
			e, _ = json.Marshal(&Error{Code: rerr.Code, Message: rerr.Message})
		}
		b = append(b, `,"error":`...)
		b = append(b, e...)
	} else {
		if result == nil {
			result = nullID
		}
		b = append(b, `,"result":`...)
		b = append(b, result...)
	}
	return append(b, '}')
}

// errLineTooLong reports a line over the limit; the rest of it was
// skipped.
var errLineTooLong = errors.New("line too long")

// lineReader reads newline-terminated lines of bounded length.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// next returns the next line without its line ending. A line longer than
// max is consumed up to its end and reported as errLineTooLong. At the end
// of input it returns io.EOF (a last line without a newline is returned
// first).
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		frag, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(frag) > l.max+2 { // room for "\r\n"
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, frag...)
			}
		}
		switch {
		case err == nil:
			return l.finish(tooLong)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong {
				return nil, errLineTooLong
			}
			if len(l.buf) == 0 {
				return nil, io.EOF
			}
			return l.finish(false)
		default:
			return nil, err
		}
	}
}

func (l *lineReader) finish(tooLong bool) ([]byte, error) {
	if tooLong {
		return nil, errLineTooLong
	}
	line := bytes.TrimSuffix(l.buf, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > l.max {
		return nil, errLineTooLong
	}
	return line, nil
}

// decodeParams decodes a params object strictly: unknown members are
// errors, so a misspelt param is reported rather than ignored.
func decodeParams(raw json.RawMessage, v any) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, nullID) {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return errorf(CodeInvalidParams, "params must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(CodeInvalidParams, "params: %v", cleanJSONError(err))
	}
	return nil
}

// cleanJSONError shortens encoding/json's messages ("json: unknown field
// \"x\"").
func cleanJSONError(err error) string {
	msg := err.Error()
	msg = string(bytes.TrimPrefix([]byte(msg), []byte("json: ")))
	return msg
}
