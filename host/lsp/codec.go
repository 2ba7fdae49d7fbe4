package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules"
)

// MaxMessageBytes bounds one LSP message: a whole document of
// rules.MaxFileBytes, JSON-escaped (a control character takes six bytes),
// with room for the envelope.
const MaxMessageBytes = 6*rules.MaxFileBytes + 1<<20

// maxHeaderLine bounds one header line (Content-Length, Content-Type).
const maxHeaderLine = 1024

// codec is jsonrpc2.VSCodeObjectCodec within bounds: a header line longer
// than maxHeaderLine or a body longer than MaxMessageBytes ends the
// connection instead of growing a buffer, and the body is read whole
// before it is decoded, so a malformed one cannot leave the stream out of
// step.
type codec struct{}

func (codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (codec) ReadObject(r *bufio.Reader, v any) error {
	length := -1
	for {
		line, err := readLine(r)
		if err != nil {
			return err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return fmt.Errorf("lsp: bad Content-Length %q", value)
			}
			if n > MaxMessageBytes {
				return fmt.Errorf("lsp: message of %d bytes exceeds the bound of %d", n, MaxMessageBytes)
			}
			length = n
		}
	}
	if length < 0 {
		return fmt.Errorf("lsp: no Content-Length header")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// readLine reads one header line ending in \r\n (or \n), within
// maxHeaderLine bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		if c == '\n' {
			return strings.TrimSuffix(b.String(), "\r"), nil
		}
		if b.Len() >= maxHeaderLine {
			return "", fmt.Errorf("lsp: header line longer than %d bytes", maxHeaderLine)
		}
		b.WriteByte(c)
	}
}
