package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// replay --compare warning_runway=8192,20000 on the recorded session: one
// column per setting, and the warning at an earlier turn with 20000.
func TestReplayCompareGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "", "replay", "testdata/sessions/pi-faux-read.jsonl", "--context-window", "64000",
		"--compare", "warning_runway=8192,20000")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, filepath.Join("testdata", "replay", "compare_warning_runway.golden"), out)
	m := regexp.MustCompile(`(?m)^  first warning\s+turn (\d+) .*turn (\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no first warning row:\n%s", out)
	}
	late, _ := strconv.Atoi(m[1])
	early, _ := strconv.Atoi(m[2])
	if early >= late {
		t.Errorf("warning at turn %d with 20000, %d with 8192: not earlier", early, late)
	}
}

// --json prints one object per session and setting with the contract's
// members.
func TestReplayJSON(t *testing.T) {
	out, errOut, code := runCLI(t, "", "replay", "testdata/sessions", "--json", "--compare", "policy=wipe_memory,autocompacter", "--context-window", "64000")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob("testdata/sessions/*")
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		for _, k := range []string{"session", "events", "turns", "peak_tokens", "resets", "decisions", "errors"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q", n+1, k)
			}
		}
		ds, _ := m["decisions"].([]any)
		for _, d := range ds {
			dm := d.(map[string]any)
			for _, k := range []string{"turn", "event", "rules", "effects", "projected"} {
				if _, ok := dm[k]; !ok {
					t.Fatalf("decision lacks %q: %v", k, dm)
				}
			}
		}
		n++
	}
	if n != 2*len(files) {
		t.Errorf("%d objects for %d files and 2 settings", n, len(files))
	}
}

// --plot writes an SVG that parses as XML and a PNG that decodes.
func TestReplayPlot(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{"budget.svg", "budget.png"} {
		path := filepath.Join(tmp, name)
		_, errOut, code := runCLI(t, "", "replay", "testdata/sessions/pi-faux-read.jsonl", "--context-window", "64000",
			"--compare", "warning_runway=8192,20000", "--plot", path)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if strings.HasSuffix(name, ".png") {
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("png: %v", err)
			}
			if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
				t.Errorf("png of %v", b)
			}
			continue
		}
		dec := xml.NewDecoder(f)
		root, texts := "", 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("svg: %v", err)
			}
			switch x := tok.(type) {
			case xml.StartElement:
				if root == "" {
					root = x.Name.Local
				}
			case xml.CharData:
				if strings.Contains(string(x), "warning") {
					texts++
				}
			}
		}
		if root != "svg" || texts == 0 {
			t.Errorf("svg root %q, %d warning labels", root, texts)
		}
	}
	_, errOut, code := runCLI(t, "", "replay", "testdata/sessions/pi-faux-read.jsonl", "--plot", filepath.Join(tmp, "x.gif"))
	if code != exitUsage || !strings.Contains(errOut, ".svg or .png") {
		t.Errorf("--plot x.gif: exit %d %s", code, errOut)
	}
}

func TestReplayUsage(t *testing.T) {
	for _, args := range [][]string{
		{"replay"},
		{"replay", "testdata/sessions", "--compare", "warning_runway"},
		{"replay", "no/such/dir"},
		{"replay", "testdata/sessions", "--compare", "reserve=-1"},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if _, errOut, code := runCLI(t, "", "replay", "testdata/sessions", "--set", "warning_runway=-5"); code != exitFailure || errOut == "" {
		t.Errorf("bad --set: exit %d %s", code, errOut)
	}
}

// simulate --plot draws the scenario as replay --plot draws a session.
func TestSimulatePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim.svg")
	out, errOut, code := runCLI(t, "", "simulate", "--plot", path)
	if code != exitOK || !strings.Contains(out, "plot written to "+path) {
		t.Fatalf("exit %d: %s %s", code, errOut, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("svg: %v %v", err, doc.XMLName)
	}
	for _, want := range []string{"reminder", "warning", "reset", "hard_reserve", "183,616"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
}

// --pi-settings takes the reserve from Pi's settings.json; an explicit
// --reserve wins over it.
func TestReplayPiSettings(t *testing.T) {
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"compaction":{"reserveTokens":24000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	warn := func(args ...string) float64 {
		out, errOut, code := runCLI(t, "", append([]string{"replay", "testdata/sessions/pi-faux-read.jsonl", "--context-window", "64000", "--json"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		var m struct {
			FirstWarning struct{ Turn float64 } `json:"first_warning"`
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m.FirstWarning.Turn
	}
	def, pi, flag := warn(), warn("--pi-settings", settings), warn("--pi-settings", settings, "--reserve", "16384")
	if !(pi < def) || flag != def {
		t.Errorf("first warning: default %v, Pi settings %v, Pi settings and --reserve 16384 %v", def, pi, flag)
	}
	if _, errOut, code := runCLI(t, "", "replay", "testdata/sessions", "--pi-settings", "nope.json"); code != exitUsage || !strings.Contains(errOut, "nope.json") {
		t.Errorf("missing settings file: exit %d %s", code, errOut)
	}
}

// A file that is not a Pi session is reported and the others are still
// replayed; the exit status says something failed.
func TestReplayNotASession(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/sessions/branched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(`{"type":"message","id":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "replay", dir)
	if code != exitFailure || !strings.Contains(errOut, "a.jsonl: not a Pi session") || !strings.Contains(out, "b.jsonl") || !strings.Contains(out, "sessions                               1") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// --progress always draws the bar on stderr, and the reports still come
// whole on stdout; never draws none.
func TestReplayProgressBar(t *testing.T) {
	for _, c := range []struct {
		mode string
		bar  bool
	}{{"always", true}, {"never", false}} {
		out, errOut, code := runCLI(t, "", "replay", "testdata/sessions", "--context-window", "64000", "--progress", c.mode)
		if code != 0 {
			t.Fatalf("--progress %s: exit %d\n%s", c.mode, code, errOut)
		}
		if got := strings.Contains(errOut, "replaying"); got != c.bar {
			t.Errorf("--progress %s: bar on stderr %v, want %v:\n%s", c.mode, got, c.bar, errOut)
		}
		if !strings.Contains(out, "pi-faux-read.jsonl") {
			t.Errorf("--progress %s: the reports are missing:\n%s", c.mode, out)
		}
	}
}
