package rpc

import "testing"

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
