package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
)

// decisionLog appends one JSON line per decision: time, session, policy,
// event, rules, effects. Each line is one write to a file opened for
// appending, so it is on disk (not in a buffer) when decide returns and
// lines of concurrent servers do not interleave.
type decisionLog struct {
	path string
	f    *os.File
	buf  []byte
}

func openDecisionLog(path string) (*decisionLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &decisionLog{path: path, f: f}, nil
}

func (l *decisionLog) write(t time.Time, session, policy string, event []byte, rules []string, effects []engine.Effect) error {
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
