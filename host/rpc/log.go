package rpc

import (
	"fmt"
	"unicode/utf8"
)

// A host that does not read the server's stderr must not stop it: once the
// pipe is full, every write to it blocks. So the log is bounded by kind (a
// kind is a message's format): the first logBurst lines of a kind are
// written, then one line each time its count reaches a power of ten, saying
// how many there were. 5,000 evictions write 13 lines, not 5,000; each line
// is cut at maxLogLine bytes.
const (
	logBurst   = 10
	maxLogLine = 1024
)

func (s *Server) logf(format string, args ...any) {
	if s.logCounts == nil {
		s.logCounts = map[string]int{}
	}
	n := s.logCounts[format] + 1
	s.logCounts[format] = n
	if n > logBurst && !powerOfTen(n) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if n > logBurst {
		msg = fmt.Sprintf("%d times so far (after the first %d, one line at each power of ten): %s", n, logBurst, msg)
	}
	if len(msg) > maxLogLine {
		cut := maxLogLine
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	fmt.Fprintf(s.opts.Log, "resetpolicy serve: %s\n", msg)
}

func powerOfTen(n int) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}
