package render_test

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/host/render"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

var update = flag.Bool("update", false, "regenerate docs/wipe_memory_request_overflow.{dot,svg}")

func load(t *testing.T, name string) *rules.Policy {
	t.Helper()
	p, diags := policies.Load(name, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// TestReadmeDiagramIsCurrent regenerates the wipe_memory request × overflow
// diagram the README shows; it fails when the committed one is stale. The
// command that makes it: resetpolicy graph wipe_memory --slot request
// --slot overflow --format svg -o docs/wipe_memory_request_overflow.svg
func TestReadmeDiagramIsCurrent(t *testing.T) {
	d, err := graph.Product(load(t, "wipe_memory"), []string{"request", "overflow"}, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	dot := graph.DOT([]*graph.Diagram{d})
	svg, err := render.Render([]*graph.Diagram{d}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	const base = "../../docs/wipe_memory_request_overflow"
	if *update {
		if err := os.WriteFile(base+".dot", dot, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+".svg", svg, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(base + ".dot")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, dot) {
		t.Errorf("%s.dot is stale: run go test ./host/render -update", base)
	}
	// Rendering is deterministic, so the image is checked too.
	if got, _ := os.ReadFile(base + ".svg"); !bytes.Equal(got, svg) {
		t.Errorf("%s.svg is stale: run go test ./host/render -update", base)
	}
	// The diagram shows what the seed says: overflow recovery is armed by
	// a failed turn and spent at settle (or at the overflow's own turn end
	// when input is queued); the rules are behind the edges.
	for _, want := range []string{
		`"none × idle" -> "none × pending" [label="turn_end", tooltip="turn_end: turn_end_overflow_arms_recovery"]`,
		`"none × pending" -> "none × spent" [label="before_settle\lturn_end\l", tooltip="before_settle: settle_overflow_recovery_gets_one_attempt\lturn_end: turn_end_overflow_with_queued_input_recovers_before_it\l"]`,
	} {
		if !strings.Contains(string(dot), want) {
			t.Errorf("diagram lacks %s", want)
		}
	}
}
