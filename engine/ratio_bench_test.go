package engine_test

import (
	"math/rand"
	"runtime"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
)

// The machine benchmarks run on is shared, so the figure that matters is a
// ratio taken in one run: these benchmarks alternate short blocks of the
// hand-written reducer and of Decide over the same events and report both
// times per event and their ratio (target: ratio ≤ 2). The times are the
// benchmark thread's CPU time (neither side allocates, so no other thread
// works for them), which leaves out waiting for a core.

func ratioBench(b *testing.B, stream []string) {
	events := make([]engine.Event, len(stream))
	fs := make([]facts, len(stream))
	for i, line := range stream {
		events[i] = event(b, line)
		fs[i] = factsOf(events[i])
	}
	s := wipeMemory(b).NewSession()
	var r baseline
	const block = 512
	var base, dec time.Duration
	at, bt := 0, 0
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := threadCPU()
		for j := 0; j < block; j++ {
			r.decide(&fs[bt])
			if bt++; bt == len(fs) {
				bt, r.s = 0, baselineState{}
			}
		}
		t1 := threadCPU()
		for j := 0; j < block; j++ {
			if _, err := s.Decide(events[at]); err != nil {
				b.Fatal(err)
			}
			if at++; at == len(events) {
				at = 0
				s.Reset()
			}
		}
		t2 := threadCPU()
		base += t1 - t0
		dec += t2 - t1
	}
	n := float64(b.N) * block
	b.ReportMetric(float64(base.Nanoseconds())/n, "baseline-ns/event")
	b.ReportMetric(float64(dec.Nanoseconds())/n, "decide-ns/event")
	b.ReportMetric(float64(dec)/float64(base), "ratio")
}

// BenchmarkRatioBenchStream is the README's 26-event stream.
func BenchmarkRatioBenchStream(b *testing.B) { ratioBench(b, benchStream) }

// BenchmarkRatioGenerated is a generated 10,000-event stream around every
// threshold and branch of the rules.
func BenchmarkRatioGenerated(b *testing.B) {
	ratioBench(b, randomStream(rand.New(rand.NewSource(2)), 10000))
}
