package graph_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

func load(t *testing.T, name string) *rules.Policy {
	t.Helper()
	p, diags := policies.Load(name, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func TestPerSlot(t *testing.T) {
	ds, err := graph.PerSlot(load(t, "new_context"), []string{"request"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || len(ds[0].Nodes) != 2 || !ds[0].Nodes[0].Initial {
		t.Fatalf("diagram: %+v", ds)
	}
	var found bool
	for _, e := range ds[0].Edges {
		if e.From == "none" && e.To == "pending" && strings.Join(e.Labels, ",") == "tool / new_context_marks_explicit_request" {
			found = true
		}
	}
	if !found {
		t.Errorf("no edge none -> pending by new_context_marks_explicit_request: %+v", ds[0].Edges)
	}
	// A rule that fires in pending without moving is a note of the node.
	if !strings.Contains(strings.Join(ds[0].Nodes[1].Notes, "\n"), "tool / new_context_repeat_reports_already_pending: reply") {
		t.Errorf("pending notes: %v", ds[0].Nodes[1].Notes)
	}
	m := string(graph.Mermaid(ds))
	if !strings.Contains(m, "stateDiagram-v2") || !strings.Contains(m, "s0 --> s1 : tool / new_context_marks_explicit_request") {
		t.Errorf("mermaid:\n%s", m)
	}
	if _, err := graph.PerSlot(load(t, "new_context"), []string{"attempt_id"}); err == nil {
		t.Error("an int slot is not an enum: want an error")
	}
}
