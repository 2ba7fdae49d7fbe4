package engine_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// benchStream is a fixed mixed session on wipe_memory: ordinary turns,
// budget staging, a direct wipe, a manual close-out, an abort and an
// overflow recovery. Decide runs it in a loop, one event per op.
var benchStream = []string{
	`{"event":"session_start","reason":"startup"}`,
	`{"event":"request","tokens":20000}`,
	`{"event":"turn_end","outcome":"completed","tokens":22000,"tool_results":2}`,
	`{"event":"request","tokens":150000}`,
	`{"event":"turn_end","outcome":"completed","tokens":152000}`,
	`{"event":"request","tokens":175000}`,
	`{"event":"tool","name":"wipe_memory"}`,
	`{"event":"turn_end","outcome":"completed","tokens":176000,"tool_results":1}`,
	`{"event":"request","tokens":9000,"window_id":"w2"}`,
	`{"event":"turn_end","outcome":"completed","tokens":9500,"window_id":"w2"}`,
	`{"event":"agent_end","window_id":"w2"}`,
	`{"event":"before_settle","outcome":"completed","window_id":"w2"}`,
	`{"event":"settled","window_id":"w2"}`,
	`{"event":"command","name":"wipe-memory","idle":true,"window_id":"w2"}`,
	`{"event":"request","tokens":12000,"window_id":"w2"}`,
	`{"event":"turn_end","outcome":"completed","tokens":13000,"window_id":"w2"}`,
	`{"event":"before_settle","outcome":"completed","window_id":"w2"}`,
	`{"event":"settled","window_id":"w3"}`,
	`{"event":"request","tokens":30000,"window_id":"w3"}`,
	`{"event":"turn_end","outcome":"aborted","tokens":30000,"window_id":"w3"}`,
	`{"event":"before_settle","outcome":"aborted","window_id":"w3"}`,
	`{"event":"request","tokens":199000,"window_id":"w3"}`,
	`{"event":"turn_end","outcome":"error","error":"overflow","window_id":"w3"}`,
	`{"event":"before_settle","outcome":"error","window_id":"w3"}`,
	`{"event":"settled","window_id":"w4"}`,
	`{"event":"before_compact","reason":"threshold","window_id":"w4"}`,
}

func parseStream(tb testing.TB) []engine.Event {
	out := make([]engine.Event, len(benchStream))
	for i, s := range benchStream {
		out[i] = event(tb, s)
	}
	return out
}

func wipeMemory(tb testing.TB) *engine.Engine {
	p, diags := policies.Load("wipe_memory", nil)
	if diags.HasErrors() {
		tb.Fatal(diags.Error())
	}
	return engine.New(p)
}

// BenchmarkDecide is one Decide of the compiled wipe_memory policy per op.
func BenchmarkDecide(b *testing.B) {
	events := parseStream(b)
	s := wipeMemory(b).NewSession()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Decide(events[i%len(events)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadWipeMemory is loading and compiling the built-in wipe_memory,
// as it loads: from its syntax tree, made at build time.
func BenchmarkLoadWipeMemory(b *testing.B) {
	src, _ := policies.Source("wipe_memory")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, diags := rules.Load(src); diags.HasErrors() {
			b.Fatal(diags.Error())
		}
	}
}

type (
	engineEvent   = engine.Event
	engineSession = engine.Session
)

func wipeMemorySource() (string, bool) {
	src, ok := policies.Source("wipe_memory")
	return string(src.Bytes), ok
}

// BenchmarkNewEngine is preparing each built-in for running (its plans,
// their indexes and state tables), which serve does for a session's
// policy before its first decision.
func BenchmarkNewEngine(b *testing.B) {
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				engine.New(p)
			}
		})
	}
}
