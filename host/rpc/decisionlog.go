package rpc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
)

// decisionLog appends one JSON line per decision: time, session, policy,
// event, rules, effects, state. Each line is one write to a file opened for
// appending, so it is on disk (not in a buffer) when decide returns and
// lines of concurrent servers do not interleave.
type decisionLog struct {
	path string
	f    *os.File
	buf  []byte
}

// openDecisionLog opens the log for appending. It is only ever a regular
// file: a final symlink is not followed (O_NOFOLLOW), a FIFO or a device
// is refused (O_NONBLOCK keeps opening a FIFO from waiting for a reader),
// and so is the file that is this process's stdout, which carries the
// protocol.
func openDecisionLog(path string) (*decisionLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// Said plainly first; the open's flags and the check after it are what
	// hold against a file swapped in between.
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, notRegular(path, os.ModeSymlink)
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = notRegular(path, info.Mode())
	}
	if err == nil {
		if out, serr := os.Stdout.Stat(); serr == nil && os.SameFile(info, out) {
			err = fmt.Errorf("%s is the server's stdout, which carries only the protocol", path)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &decisionLog{path: path, f: f}, nil
}

func notRegular(path string, m os.FileMode) error {
	what := "not a regular file"
	switch {
	case m&os.ModeSymlink != 0:
		what = "a symlink"
	case m&os.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		what = "a device"
	case m.IsDir():
		what = "a directory"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s is %s; a decision log is only ever a regular file", path, what)
}

// write logs one decision. Its "state" (the session's state after the
// decision) and its "event" make the line a snapshot that `eval --state`
// and `restore` read back, as they do a line of eval output.
func (l *decisionLog) write(t time.Time, session, policy string, event []byte, rules []string, effects []engine.Effect, ss *engine.Session) error {
	b := l.buf[:0]
	b = append(b, `{"time":`...)
	b = engine.AppendJSONString(b, t.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"session":`...)
	b = engine.AppendJSONString(b, session)
	b = append(b, `,"policy":`...)
	b = engine.AppendJSONString(b, policy)
	b = append(b, `,"event":`...)
	b = append(b, event...)
	b = append(b, `,"rules":`...)
	b = engine.AppendStringsJSON(b, rules)
	b = append(b, `,"effects":`...)
	b = engine.AppendEffectsJSON(b, effects)
	b = append(b, `,"state":`...)
	b = ss.AppendStateJSON(b)
	b = append(b, "}\n"...)
	l.buf = b
	_, err := l.f.Write(b)
	return err
}

func (l *decisionLog) Close() error { return l.f.Close() }

// openLog switches the decision log to path ("" turns it off).
func (s *Server) openLog(path string) error {
	if s.dlog != nil && s.dlog.path == path {
		return nil
	}
	if s.dlog != nil {
		s.dlog.Close()
		s.dlog = nil
	}
	if path == "" {
		return nil
	}
	l, err := openDecisionLog(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	s.dlog = l
	return nil
}
