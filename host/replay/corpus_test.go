package replay_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// writeSession writes one generated Pi session shaped like a long coding
// session: prompts, model turns calling read and bash, tool results of
// 200 B to 2 KB, an error turn now and then, and Pi's threshold
// compaction when the context reaches window − reserve.
func writeSession(path string, rng *rand.Rand, turns int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := 0
	prev := "null"
	ts := func() string { return t0.Add(time.Duration(id) * time.Second).Format("2006-01-02T15:04:05.000Z") }
	entry := func(body string) {
		id++
		eid := fmt.Sprintf("%08x", id)
		fmt.Fprintf(w, `{"type":%s,"id":"%s","parentId":%s,"timestamp":"%s"}`+"\n", body, eid, prev, ts())
		prev = `"` + eid + `"`
	}
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"gen-%d","timestamp":"%s","cwd":"/work/project"}`+"\n", rng.Int64(), ts())
	entry(`"model_change","provider":"anthropic","modelId":"claude-sonnet-4-5"`)
	entry(`"message","message":{"role":"system","content":"You are an expert coding assistant.","timestamp":0}`)
	filler := strings.Repeat("func main() { fmt.Println(hello, world) } // ", 50)
	tokens := int64(4000)
	for turn := 0; turn < turns; {
		entry(`"message","message":{"role":"user","content":"Fix the failing test in pkg/loader and run the suite.","timestamp":0}`)
		run := 3 + rng.IntN(15)
		for k := 0; k < run && turn < turns; k++ {
			turn++
			if rng.IntN(50) == 0 {
				entry(`"message","message":{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"overloaded_error: Overloaded","timestamp":0}`)
				continue
			}
			out := int64(50 + rng.IntN(400))
			tool := "read"
			if rng.IntN(3) == 0 {
				tool = "bash"
			}
			last := k == run-1
			stop, content := "toolUse", fmt.Sprintf(`[{"type":"text","text":"Looking at the loader."},{"type":"toolCall","id":"toolu_%d","name":"%s","arguments":{"path":"pkg/loader/loader_%d.go"}}]`, turn, tool, turn)
			if last {
				stop, content = "stop", `[{"type":"text","text":"The suite passes now; the loader validates its input."}]`
			}
			entry(fmt.Sprintf(`"message","message":{"role":"assistant","content":%s,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":3,"output":%d,"cacheRead":%d,"cacheWrite":%d,"totalTokens":%d,"cost":{"input":0.00001,"output":0.0012,"cacheRead":0.003,"cacheWrite":0.001,"total":0.0053}},"stopReason":"%s","timestamp":0}`,
				content, out, tokens-500, 497, tokens+out, stop))
			tokens += out
			if last {
				break
			}
			n := 200 + rng.IntN(1800)
			entry(fmt.Sprintf(`"message","message":{"role":"toolResult","toolCallId":"toolu_%d","toolName":"%s","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":0}`,
				turn, tool, filler[:min(n, len(filler))]))
			tokens += int64(n / 4)
			if tokens > 200000-16384 {
				entry(fmt.Sprintf(`"compaction","summary":"## Goal\nFix the loader.\n## Progress\nTests fixed.","firstKeptEntryId":"%08x","tokensBefore":%d`, id-2, tokens))
				tokens = 22000
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeCorpus writes n sessions of 20 to 300 turns below dir.
func writeCorpus(tb testing.TB, dir string, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("--project-%d--", i%20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := writeSession(filepath.Join(sub, fmt.Sprintf("2026-01-01T00-00-00-000Z_%06d.jsonl", i)), rng, 20+rng.IntN(280)); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestWriteCorpus writes a generated corpus for measuring the command
// (README "Replaying recorded sessions"): REPLAY_CORPUS=DIR
// REPLAY_SESSIONS=1000 go test ./host/replay -run WriteCorpus.
func TestWriteCorpus(t *testing.T) {
	dir := os.Getenv("REPLAY_CORPUS")
	if dir == "" {
		t.Skip("set REPLAY_CORPUS=DIR (and REPLAY_SESSIONS=N) to write a generated corpus")
	}
	n, err := strconv.Atoi(os.Getenv("REPLAY_SESSIONS"))
	if err != nil || n <= 0 {
		n = 1000
	}
	writeCorpus(t, dir, n)
}

// The generated sessions read without a problem and replay without a
// rejected event, compacting as Pi would.
func TestGeneratedSession(t *testing.T) {
	dir := t.TempDir()
	writeCorpus(t, dir, 3)
	files, err := sessionfile.Walk([]string{dir})
	if err != nil || len(files) != 3 {
		t.Fatalf("%v %v", files, err)
	}
	for _, file := range files {
		rep := replayFile(t, config(t, "wipe_memory", nil, 0), file, "")
		if len(rep.Errors) != 0 || len(rep.Rejected) != 0 || rep.ContextWindow != 200000 || rep.WindowFrom != "model" {
			t.Errorf("%s: errors %v rejected %v window %d %s", file, rep.Errors, rep.Rejected, rep.ContextWindow, rep.WindowFrom)
		}
	}
}

var (
	corpusOnce sync.Once
	corpusDir  string
)

// benchCorpus writes the benchmark's corpus once per process (the
// benchmark function runs several times); TestMain removes it.
func benchCorpus(b *testing.B) string {
	corpusOnce.Do(func() {
		d, err := os.MkdirTemp("", "replay-corpus-")
		if err != nil {
			b.Fatal(err)
		}
		writeCorpus(b, d, 1000)
		corpusDir = d
	})
	return corpusDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if corpusDir != "" {
		os.RemoveAll(corpusDir)
	}
	os.Exit(code)
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReplayCorpus replays a generated corpus of 1000 sessions under
// wipe_memory on every core, reading each file from disk, and reports
// host events decided per second.
//
//	go test ./host/replay -run XXX -bench ReplayCorpus -benchtime 3x -count 5
func BenchmarkReplayCorpus(b *testing.B) {
	files, err := sessionfile.Walk([]string{benchCorpus(b)})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range files {
		st, _ := os.Stat(f)
		size += st.Size()
	}
	cfg := config(b, "wipe_memory", nil, 0)
	cfg.Points = false
	b.SetBytes(size)
	b.ResetTimer()
	var events atomic.Int64
	cpu0 := cpuTime()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		c := replay.Corpus{Configs: []replay.Config{cfg}, Emit: func(r replay.Result) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
			events.Add(int64(r.Reports[0].Events))
		}}
		c.Run(files)
	}
	el := time.Since(start)
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(events.Load())/el.Seconds(), "events/s")
	// On a machine shared with other work the wall clock measures the
	// others too; events per second of this process's CPU time, times
	// the cores it ran on, is the rate with the cores to itself.
	b.ReportMetric(float64(events.Load())/cpu.Seconds(), "events/cpu-s")
	b.ReportMetric(float64(events.Load())/float64(b.N), "events/corpus")
}

// After the replay leaves the record, Pi's threshold compaction runs on
// the projected window: under new_context, whose rules answer every
// compaction with a reset, a long session resets at the record's first
// compaction and again, projected, each time the fresh window fills.
func TestProjectedThresholdCompaction(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "long.jsonl")
	if err := writeSession(file, rand.New(rand.NewPCG(7, 7)), 1500); err != nil {
		t.Fatal(err)
	}
	rep := replayFile(t, config(t, "new_context", nil, 0), file, "")
	if rep.RecordedCompactions < 3 || rep.DivergedAt == 0 || rep.NotReplayed == 0 {
		t.Fatalf("recorded compactions %d, diverged at %d, not replayed %d", rep.RecordedCompactions, rep.DivergedAt, rep.NotReplayed)
	}
	projected := 0
	for _, d := range rep.Decisions {
		if d.Event == "before_compact" && d.Projected {
			projected++
			if d.Tokens <= 200000-16384 {
				t.Errorf("projected compaction at %d tokens, under Pi's threshold", d.Tokens)
			}
		}
	}
	if projected == 0 || rep.Resets != 1+projected {
		t.Fatalf("projected compactions decided %d, resets %d", projected, rep.Resets)
	}
	if rep.PeakTokens > 200000 {
		t.Errorf("projected peak %d over the window", rep.PeakTokens)
	}
}

// Files returns every result in order; with Series each report carries
// its per-request series and its setting's thresholds.
func TestFilesSeries(t *testing.T) {
	cfg := config(t, "wipe_memory", nil, 64000)
	cfg.Series = true
	files := []string{filepath.Join(dir, "pi-faux-read.jsonl"), filepath.Join(dir, "branched.jsonl")}
	res := replay.Files([]replay.Config{cfg}, files, "", 1)
	if len(res) != 2 || res[0].File != files[0] || res[1].File != files[1] {
		t.Fatalf("results %+v", res)
	}
	rep := res[0].Reports[0]
	if len(rep.Series) != rep.Turns || rep.Series[0].Kind == "" || len(rep.Thresholds) == 0 {
		t.Fatalf("series %d for %d turns, thresholds %v", len(rep.Series), rep.Turns, rep.Thresholds)
	}
}

// Every worker count gives the same results, in file order, a file that
// cannot be read included; one worker replays in the calling goroutine
// (a worker goroutine cost a thread wake-up at every file).
func TestCorpusWorkers(t *testing.T) {
	d := t.TempDir()
	writeCorpus(t, d, 5)
	files, err := sessionfile.Walk([]string{d})
	if err != nil || len(files) != 5 {
		t.Fatalf("%v %v", files, err)
	}
	files = slices.Insert(files, 2, filepath.Join(d, "missing.jsonl"))
	cfgs := []replay.Config{config(t, "wipe_memory", nil, 0), config(t, "new_context", nil, 0)}
	run := func(workers int) (string, int, int) {
		var out []string
		var done atomic.Int64
		extra := 0
		before := runtime.NumGoroutine()
		c := replay.Corpus{Configs: cfgs, Workers: workers, Done: func() { done.Add(1) }, Emit: func(r replay.Result) {
			extra = max(extra, runtime.NumGoroutine()-before)
			line := r.File
			if r.Err != nil {
				line += " error " + r.Err.Error()
			}
			for _, rep := range r.Reports {
				line += fmt.Sprintf(" %d/%d/%d", rep.Events, rep.Turns, len(rep.Rejected))
			}
			out = append(out, line)
		}}
		c.Run(files)
		return strings.Join(out, "\n"), int(done.Load()), extra
	}
	one, done, extra := run(1)
	if done != len(files) || extra != 0 || !strings.Contains(one, "missing.jsonl error") {
		t.Fatalf("one worker: done %d of %d, %d goroutines more while emitting:\n%s", done, len(files), extra, one)
	}
	for _, w := range []int{2, 3} {
		if got, done, _ := run(w); got != one || done != len(files) {
			t.Errorf("%d workers, done %d:\n%s\none worker:\n%s", w, done, got, one)
		}
	}
}
