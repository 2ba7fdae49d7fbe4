package replay_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenSessions are the small sessions written for the replay's edge
// cases (testdata/golden/*.jsonl; made by hand, no one's real session).
func goldenSessions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden sessions: %v", err)
	}
	var out []string
	for _, f := range files {
		// Pi reads 1e999 as Infinity; its estimate of that file is no
		// figure to compare with.
		if !strings.Contains(f, "absurd") {
			out = append(out, f)
		}
	}
	return out
}

// Each golden session replays under wipe_memory (the model's window from
// pi-ai's registry) to its .golden: the text report, then the JSON.
// Their points: a provider's stated prompt size used and marked measured
// (overflow_stated), a measured context above the assumed window said
// with a --context-window suggestion (window_exceeded, unknown_model),
// recorded overflows after the replay left the record not replayed
// (overflow_after_departure), a compaction sharing its line counted
// (joined_compaction), absurd token counts reported with their lines
// (absurd_usage), and edge-case sessions with no rejected event.
func TestGoldenReplays(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := sessionfile.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg := config(t, "wipe_memory", nil, 0)
			rep, err := replay.New(cfg).Replay(f, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rejected) > 0 {
				t.Errorf("rejected events: %+v", rep.Rejected)
			}
			var b bytes.Buffer
			if err := replay.WriteText(&b, []*replay.Report{rep}); err != nil {
				t.Fatal(err)
			}
			js, _ := json.MarshalIndent(rep, "", "  ")
			b.Write(js)
			b.WriteByte('\n')
			golden := strings.TrimSuffix(file, ".jsonl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./host/replay -run TestGoldenReplays -update writes it)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s differs (go test ./host/replay -run TestGoldenReplays -update rewrites it)\n--- got\n%s", golden, b.Bytes())
			}
		})
	}
}

// After the replay left the record, a recorded overflow is not replayed
// while the projected request fits the window (the golden session), and
// is replayed when the projected window would overflow too: here the
// agent wipes its window, then reads a file of some 210,000 tokens and
// the provider refuses the request, with automatic compaction off (so
// that no hard reserve resets the window first).
func TestOverflowAfterDeparture(t *testing.T) {
	golden, _ := filepath.Abs(filepath.Join("testdata", "golden", "overflow_after_departure.jsonl"))
	rep := replayFile(t, config(t, "wipe_memory", nil, 0), golden, "")
	if rep.DivergedAt == 0 || rep.OverflowsNotReplayed != 1 {
		t.Errorf("golden: diverged at %d, overflows not replayed %d, want 1", rep.DivergedAt, rep.OverflowsNotReplayed)
	}
	big := strings.Repeat("x", 840000)
	src := `{"type":"session","version":3,"id":"s"}
{"type":"message","id":"u1","message":{"role":"user","content":"Start."}}
{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"wipe_memory","arguments":{}}],"model":"claude-sonnet-4-5","stopReason":"toolUse","usage":{"input":3000,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":3010}}}
{"type":"message","id":"t1","parentId":"a1","message":{"role":"toolResult","toolName":"wipe_memory","content":[{"type":"text","text":"ok"}]}}
{"type":"message","id":"b1","parentId":"t1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"read","arguments":{"path":"big"}}],"model":"claude-sonnet-4-5","stopReason":"toolUse","usage":{"input":3100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":3110}}}
{"type":"message","id":"r1","parentId":"b1","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"` + big + `"}]}}
{"type":"message","id":"e1","parentId":"r1","message":{"role":"assistant","content":[],"model":"claude-sonnet-4-5","stopReason":"error","errorMessage":"prompt is too long: 213120 tokens > 200000 maximum","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0}}}
`
	file := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, "wipe_memory", nil, 0)
	cfg.Settings.AutoCompaction = false
	rep = replayFile(t, cfg, file, "")
	if rep.DivergedAt == 0 || rep.OverflowsNotReplayed != 0 || rep.Turns != 3 {
		t.Fatalf("diverged at %d, overflows not replayed %d, turns %d (want the overflow turn replayed)", rep.DivergedAt, rep.OverflowsNotReplayed, rep.Turns)
	}
	last := rep.Points[len(rep.Points)-1]
	if last.Tokens <= 200000 || last.Kind != replay.Projected {
		t.Errorf("the refused request's projected context %+v fits the window", last)
	}
}
