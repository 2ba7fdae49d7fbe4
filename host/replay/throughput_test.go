package replay_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// writeRealistic writes a session shaped like real ones: many small
// entries (prompts, short answers, thinking level and model changes,
// extension custom entries) and tool results of 0.2–4 KB, one in two
// hundred of 30–300 KB (a file read whole, a long build log), with JSON
// escapes and non-ASCII text in them, and OpenClaw-style details that
// repeat a result's output.
func writeRealistic(path string, rng *rand.Rand, turns int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	id := 0
	prev := "null"
	entry := func(body string) {
		id++
		eid := fmt.Sprintf("%08x", id)
		fmt.Fprintf(w, `{"type":%s,"id":"%s","parentId":%s,"timestamp":"2026-01-01T00:%02d:%02d.000Z"}`+"\n", body, eid, prev, id/60%60, id%60)
		prev = `"` + eid + `"`
	}
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"real-%d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/p"}`+"\n", rng.Int64())
	entry(`"model_change","provider":"anthropic","modelId":"claude-sonnet-4-5"`)
	line := "\tif err := load(\"config.yaml\"); err != nil { return fmt.Errorf(\"loader: %w\", err) } // déjà vu\n"
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(line)
		}
		s, _ := json.Marshal(b.String()[:n])
		return string(s)
	}
	tokens := int64(6000)
	for turn := 0; turn < turns; {
		entry(`"message","message":{"role":"user","content":[{"type":"text","text":"Fix the failing loader test and run the suite."}],"timestamp":0}`)
		if rng.IntN(4) == 0 {
			entry(`"custom","customType":"todo-ext/state","data":{"open":3,"done":1}`)
		}
		if rng.IntN(10) == 0 {
			entry(`"thinking_level_change","thinkingLevel":"high"`)
		}
		run := 2 + rng.IntN(12)
		for k := 0; k < run && turn < turns; k++ {
			turn++
			out := int64(30 + rng.IntN(300))
			last := k == run-1
			content := fmt.Sprintf(`[{"type":"thinking","thinking":"The loader returns early."},{"type":"toolCall","id":"toolu_%d","name":"read","arguments":{"path":"pkg/loader/loader_%d.go"}}]`, turn, turn)
			stop := "toolUse"
			if last {
				stop, content = "stop", `[{"type":"text","text":"Done: the suite passes."}]`
			}
			entry(fmt.Sprintf(`"message","message":{"role":"assistant","content":%s,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":3,"output":%d,"cacheRead":%d,"cacheWrite":400,"totalTokens":%d,"cost":{"input":0.00001,"output":0.0012,"cacheRead":0.003,"cacheWrite":0.001,"total":0.0053}},"stopReason":"%s","timestamp":0}`,
				content, out, tokens-400, tokens+out+3, stop))
			tokens += out
			if last {
				break
			}
			n := 200 + rng.IntN(3800)
			if rng.IntN(200) == 0 {
				n = 30000 + rng.IntN(270000)
			}
			body := text(n)
			details := ""
			if rng.IntN(3) == 0 {
				details = `,"details":{"output":` + body + `}`
			}
			entry(fmt.Sprintf(`"message","message":{"role":"toolResult","toolCallId":"toolu_%d","toolName":"read","content":[{"type":"text","text":%s}]%s,"isError":false,"timestamp":0}`, turn, body, details))
			tokens += int64(n / 4)
			if tokens > 200000-16384 {
				entry(fmt.Sprintf(`"compaction","summary":"## Goal\nFix the loader.","firstKeptEntryId":"%08x","tokensBefore":%d`, id-1, tokens))
				tokens = 24000
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// stdEntry is what a replay reads of an entry, for encoding/json.
type stdEntry struct {
	Type, ID, ParentID, Timestamp string
	Message                       *struct {
		Role, Model, StopReason, ErrorMessage, ToolName string
		Usage                                           *struct{ Input, Output, CacheRead, CacheWrite, TotalTokens int64 }
		Content                                         json.RawMessage
	}
	Summary, FirstKeptEntryID, CustomType string
	TokensBefore                          int64
}

// decodeStd decodes every line with encoding/json into stdEntry, and an
// assistant's or tool result's content into its blocks: the baseline.
func decodeStd(src []byte) int {
	n := 0
	for _, line := range bytes.Split(src, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e stdEntry
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if e.Message != nil && len(e.Message.Content) > 0 && e.Message.Content[0] == '[' {
			var blocks []struct{ Type, Text, Thinking, Name string }
			_ = json.Unmarshal(e.Message.Content, &blocks)
		}
		n++
	}
	return n
}

// BenchmarkReplayRealistic is issue 22's throughput measure: one core
// reads and replays a corpus shaped like real sessions under wipe_memory,
// interleaved in the same run with encoding/json decoding the same lines
// (already in memory: the baseline is the decoding alone); reported as
// host events per CPU-second and as the ratio of the two times (median of
// the rounds).
//
//	go test ./host/replay -run XXX -bench ReplayRealistic -benchtime 1x -count 1
func BenchmarkReplayRealistic(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 60; i++ {
		if err := writeRealistic(filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), rng, 40+rng.IntN(400)); err != nil {
			b.Fatal(err)
		}
	}
	files, err := sessionfile.Walk([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	var srcs [][]byte
	var size int64
	for _, f := range files {
		src, _ := os.ReadFile(f)
		srcs = append(srcs, src)
		size += int64(len(src))
	}
	cfg := config(b, "wipe_memory", nil, 0)
	cfg.Points = false
	var rates, ratios []float64
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N*5; i++ {
		events = 0
		c0 := cpuTime()
		c := replay.Corpus{Configs: []replay.Config{cfg}, Workers: 1, Emit: func(r replay.Result) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
			events += int64(r.Reports[0].Events)
		}}
		c.Run(files)
		rp := cpuTime() - c0
		c0 = cpuTime()
		if os.Getenv("REPLAY_ONLY") == "" {
			for _, s := range srcs {
				decodeStd(s)
			}
		}
		std := cpuTime() - c0
		rates = append(rates, float64(events)/rp.Seconds())
		ratios = append(ratios, float64(rp)/float64(std))
	}
	sort.Float64s(rates)
	sort.Float64s(ratios)
	b.ReportMetric(rates[len(rates)/2], "events/cpu-s")
	b.ReportMetric(ratios[len(ratios)/2], "replay/encoding-json")
	b.ReportMetric(float64(events), "events/corpus")
	b.ReportMetric(float64(size)/float64(1<<20), "MiB/corpus")
	_ = time.Second
}

// TestWriteRealistic writes BenchmarkReplayRealistic's corpus to measure
// the command on it: REPLAY_REALISTIC=DIR go test ./host/replay -run WriteRealistic.
func TestWriteRealistic(t *testing.T) {
	dir := os.Getenv("REPLAY_REALISTIC")
	if dir == "" {
		t.Skip("set REPLAY_REALISTIC=DIR to write the realistic corpus")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 60; i++ {
		if err := writeRealistic(filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), rng, 40+rng.IntN(400)); err != nil {
			t.Fatal(err)
		}
	}
}
