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
