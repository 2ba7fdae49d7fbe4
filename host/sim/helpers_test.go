package sim_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

var update = flag.Bool("update", false, "rewrite the golden timelines under testdata/scenarios")

func scenarioPath(name string) string {
	return filepath.Join("..", "..", "testdata", "scenarios", name+".scenario.hcl")
}

// run simulates a scenario of testdata/scenarios under its own policy.
func run(t *testing.T, name string) *sim.Result {
	t.Helper()
	sc, diags := scenario.ParseFile(scenarioPath(name))
	if diags.HasErrors() {
		t.Fatalf("%s: %v", name, diags)
	}
	return runScenario(t, sc, sim.Options{})
}

func runScenario(t *testing.T, sc *scenario.Scenario, opts sim.Options) *sim.Result {
	t.Helper()
	p, pd := sim.LoadPolicy(sim.PolicyName("", sc), sc, nil)
	if pd.HasErrors() {
		t.Fatalf("policy: %v", pd.Error())
	}
	r, err := sim.Run(p, sc, opts)
	if err != nil {
		var b bytes.Buffer
		_ = sim.WriteTimeline(&b, r)
		t.Fatalf("%v\n%s", err, b.String())
	}
	return r
}

// parse decodes an inline scenario.
func parse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, diags := scenario.Parse([]byte(src), "inline.scenario.hcl")
	if diags.HasErrors() {
		t.Fatalf("%v", diags)
	}
	return sc
}

func timeline(r *sim.Result) string {
	var b bytes.Buffer
	_ = sim.WriteTimeline(&b, r)
	return b.String()
}

// on returns the lines of an event.
func on(r *sim.Result, event string) []*sim.Line {
	var out []*sim.Line
	for _, l := range r.Lines {
		if l.Event == event {
			out = append(out, l)
		}
	}
	return out
}

// fired returns the lines on which a rule fired.
func fired(r *sim.Result, rule string) []*sim.Line {
	var out []*sim.Line
	for _, l := range r.Lines {
		if l.Fired(rule) {
			out = append(out, l)
		}
	}
	return out
}

// index is the line's position in the timeline.
func index(r *sim.Result, l *sim.Line) int {
	for i, x := range r.Lines {
		if x == l {
			return i
		}
	}
	return -1
}

// effects lists the effects with their arguments, as the eval contract
// writes them.
func effects(l *sim.Line) string {
	var out []string
	for _, e := range l.Effects {
		b, _ := json.Marshal(e)
		out = append(out, string(b))
	}
	return strings.Join(out, " ")
}

func effectsNamed(r *sim.Result, name string) []engine.Effect {
	var out []engine.Effect
	for _, l := range r.Lines {
		for _, e := range l.Effects {
			if e.Name == name {
				out = append(out, e)
			}
		}
	}
	return out
}

// describe lists entries the way the timeline does.
func describe(es []*session.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = sim.DescribeEntry(e)
	}
	return out
}

// pathFrom returns the descriptions of the active branch's entries from
// the first one whose description starts with prefix, leaving out the
// durable-state entries (bookkeeping outside the model's context).
func pathFrom(r *sim.Result, prefix string) []string {
	var d []string
	for _, s := range describe(r.Session.Path()) {
		if s != "custom("+sim.StateType+")" {
			d = append(d, s)
		}
	}
	for i, s := range d {
		if strings.HasPrefix(s, prefix) {
			return d[i:]
		}
	}
	return nil
}

// positions returns where each description appears on the active branch
// (-1 when absent); it fails the test when one is missing.
func position(t *testing.T, r *sim.Result, desc string) int {
	t.Helper()
	for i, s := range describe(r.Session.Path()) {
		if s == desc {
			return i
		}
	}
	t.Fatalf("no entry %q on the branch:\n%s", desc, strings.Join(describe(r.Session.Path()), "\n"))
	return -1
}

func count(r *sim.Result, desc string) int {
	n := 0
	for _, s := range describe(r.Session.Entries()) {
		if s == desc {
			n++
		}
	}
	return n
}

// checkBoundary asserts seed 000's ordered boundary for a window on the
// active branch: an empty native compaction that keeps only itself, the
// marker {windowId}, the hidden boot and the hidden continuation, in a
// row, confirmed by session.Committed.
func checkBoundary(t *testing.T, r *sim.Result, window string) int {
	t.Helper()
	path := r.Session.Path()
	for i, e := range path {
		if !session.IsMarker(e) || e.WindowID() != window {
			continue
		}
		if i < 1 || i+2 >= len(path) {
			t.Fatalf("boundary of %s is cut short", window)
		}
		c, boot, cont := path[i-1], path[i+1], path[i+2]
		if c.Type() != session.TypeCompaction || c.Summary() != "" || c.FirstKeptEntryID() != c.ID() {
			t.Errorf("boundary of %s: entry before the marker is not an empty compaction that keeps only itself: %s", window, c.Bytes())
		}
		if !session.IsBoot(boot) || boot.Display() || boot.WindowID() != window {
			t.Errorf("boundary of %s: the marker is not followed by its hidden boot: %s", window, boot.Bytes())
		}
		if !session.IsContinuation(cont) || cont.Display() || cont.WindowID() != window {
			t.Errorf("boundary of %s: the boot is not followed by its hidden continuation: %s", window, cont.Bytes())
		}
		if err := session.CheckCommitted(path, window); err != nil {
			t.Errorf("boundary of %s is not committed: %v", window, err)
		}
		return i - 1
	}
	t.Fatalf("no marker for window %s on the branch:\n%s", window, strings.Join(describe(path), "\n"))
	return -1
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}
