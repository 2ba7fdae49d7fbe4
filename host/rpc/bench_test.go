package rpc

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkHandleDecide is one decide request through the line handler,
// without the pipes, with the response buffer reused as Serve reuses it:
// the server's own share of a round trip.
func BenchmarkHandleDecide(b *testing.B) {
	s := newTestServer(b)
	line := decideLine
	if out := s.Handle(line); len(out) == 0 {
		b.Fatal("no response")
	}
	b.ReportAllocs()
	b.ResetTimer()
	var resp []byte
	for i := 0; i < b.N; i++ {
		resp = s.handle(resp[:0], line)
	}
}

// decideLine is a decide request as the Pi extension sends it: every
// common fact given.
var decideLine = []byte(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"019b7c1e-0000-7000-8000-000000000001","event":{"event":"turn_end","window_id":"w-3f2a9c1d","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":2}}}`)

// BenchmarkManySessions decides with 1 and with 10,000 open sessions,
// each op a decide in the next session round-robin (so the many-session
// case pays its cache misses), and reports the heap each idle session
// holds after a few decisions of its own.
//
//	go test -run '^$' -bench ManySessions -benchmem -count 5 ./host/rpc
func BenchmarkManySessions(b *testing.B) {
	for _, n := range []int{1, 10_000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			s := newTestServer(b)
			s.opts.MaxSessions, s.sessions.max = n, n
			lines := make([][]byte, n)
			open := [][]byte{}
			var resp []byte
			for i := range lines {
				id := fmt.Sprintf("019b7c1e-0000-7000-8000-%012d", i)
				lines[i] = bytes.Replace(decideLine, []byte("019b7c1e-0000-7000-8000-000000000001"), []byte(id), 1)
				open = append(open,
					[]byte(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"`+id+`","event":{"event":"session_start","reason":"startup"}}}`),
					[]byte(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"`+id+`","event":{"event":"tool","name":"wipe_memory","args":{}}}}`))
			}
			resp = s.handle(resp[:0], open[0]) // loads the policy
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for _, l := range open {
				resp = s.handle(resp[:0], l)
			}
			for _, l := range lines {
				resp = s.handle(resp[:0], l)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			if s.sessions.len() != n {
				b.Fatalf("%d sessions open; want %d", s.sessions.len(), n)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp = s.handle(resp[:0], lines[i%n])
			}
			if n > 1 { // one session is lost in the noise
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heap-B/session")
			}
		})
	}
}

// BenchmarkServedLoad is serve's load of the built-in default, as
// initialize makes it: its allocations are what the process Pi starts pays
// before it answers (docs/performance.md, Start-up).
func BenchmarkServedLoad(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := builtinDefault(); err != nil {
			b.Fatal(err)
		}
	}
}
