// Package reporttest writes generated Pi session files for the report's
// tests and for the README's screenshot: sessions shaped like coding
// sessions (prompts, tool calls and results, usage on every answer), none
// of them anyone's real work.
package reporttest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Session writes one session of the given turns whose context grows by
// about growth tokens a turn, to path.
func Session(path string, rng *rand.Rand, turns, growth int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id, prev := 0, "null"
	entry := func(body string) {
		id++
		eid := fmt.Sprintf("%08x", id)
		fmt.Fprintf(w, `{"type":%s,"id":"%s","parentId":%s,"timestamp":"%s"}`+"\n", body, eid, prev, t0.Add(time.Duration(id)*time.Second).Format("2006-01-02T15:04:05.000Z"))
		prev = `"` + eid + `"`
	}
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"gen-%d","timestamp":"%s","cwd":"/work/project"}`+"\n", rng.Int64(), t0.Format("2006-01-02T15:04:05.000Z"))
	entry(`"model_change","provider":"anthropic","modelId":"claude-sonnet-4-5"`)
	filler := strings.Repeat("func load(path string) error { return nil } // ", 400)
	tokens := int64(3000)
	for turn := 0; turn < turns; {
		entry(`"message","message":{"role":"user","content":"Fix the failing loader test and run the suite.","timestamp":0}`)
		run := 3 + rng.IntN(10)
		for k := 0; k < run && turn < turns; k++ {
			turn++
			out := int64(40 + rng.IntN(300))
			last := k == run-1 || turn == turns
			stop, content := "toolUse", fmt.Sprintf(`[{"type":"text","text":"Reading the loader."},{"type":"toolCall","id":"t%d","name":"read","arguments":{"path":"pkg/loader_%d.go"}}]`, turn, turn)
			if last {
				stop, content = "stop", `[{"type":"text","text":"The suite passes."}]`
			}
			entry(fmt.Sprintf(`"message","message":{"role":"assistant","content":%s,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":3,"output":%d,"cacheRead":%d,"cacheWrite":0,"totalTokens":%d,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"%s","timestamp":0}`,
				content, out, tokens, tokens+out, stop))
			tokens += out
			if last {
				break
			}
			n := min(len(filler), 4*(growth/2+rng.IntN(growth+1)))
			entry(fmt.Sprintf(`"message","message":{"role":"toolResult","toolCallId":"t%d","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":0}`, turn, filler[:n]))
			tokens += int64(n / 4)
			if tokens > 200000-16384 {
				entry(fmt.Sprintf(`"compaction","summary":"## Goal\nFix the loader.","firstKeptEntryId":"%08x","tokensBefore":%d`, id-1, tokens))
				tokens = 20000
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// Corpus writes n sessions below dir, in a few project folders as Pi
// keeps them: short quiet ones and long ones that fill the window.
func Corpus(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("--work-project-%d--", i%3))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		turns, growth := 10+rng.IntN(40), 300+rng.IntN(800)
		if i%3 == 0 {
			turns, growth = 90+rng.IntN(90), 1800+rng.IntN(1200)
		}
		if err := Session(filepath.Join(sub, fmt.Sprintf("2026-01-01T00-00-%02d-000Z_%06d.jsonl", i%60, i)), rng, turns, growth); err != nil {
			return err
		}
	}
	return nil
}

// Small writes n short sessions of 20 to 40 turns, each growing by about
// 400 tokens a turn: in a small window every one of them fills it.
func Small(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 11))
	for i := 0; i < n; i++ {
		if err := Session(filepath.Join(dir, fmt.Sprintf("s%05d.jsonl", i)), rng, 20+rng.IntN(20), 400); err != nil {
			return err
		}
	}
	return nil
}
