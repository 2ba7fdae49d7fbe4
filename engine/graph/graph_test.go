package graph_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

func load(t *testing.T, name string) *rules.Policy {
	t.Helper()
	p, diags := policies.Load(name, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// The built-ins' explorations take seconds each: every test reads the
// same per-slot diagrams and fired rules.
var (
	cacheMu sync.Mutex
	slotsOf = map[string][]*graph.Diagram{}
	firedOf = map[string]map[string]bool{}
)

// perSlot draws the per-slot diagrams of a built-in and records the rules
// its exploration fires, from one exploration (graph.Draw).
func perSlot(t *testing.T, name string) []*graph.Diagram {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if ds, ok := slotsOf[name]; ok {
		return ds
	}
	fired := map[string]bool{}
	dr, err := graph.Draw(load(t, name), nil, graph.Limits{}, verify.Options{Observe: func(_, _ []lang.Value, _ string, rs []string) {
		for _, r := range rs {
			fired[r] = true
		}
	}})
	if err == nil {
		err = dr.PerSlotErr
	}
	if err != nil {
		t.Fatal(err)
	}
	slotsOf[name], firedOf[name] = dr.PerSlot, fired
	return dr.PerSlot
}

func diagramOf(t *testing.T, name, slot string) *graph.Diagram {
	t.Helper()
	for _, d := range perSlot(t, name) {
		if d.Title == name+": "+slot {
			return d
		}
	}
	t.Fatalf("%s has no diagram of %s", name, slot)
	return nil
}

// rulesOn lists the rules an edge from -> to draws for an event.
func rulesOn(d *graph.Diagram, from, to, event string) []string {
	for _, e := range d.Edges {
		if e.From == from && e.To == to {
			for _, m := range e.Moves {
				if m.Event == event {
					return m.Rules
				}
			}
		}
	}
	return nil
}

// drawsRule: some edge out of one of the states lists the rule.
func drawsRule(d *graph.Diagram, rule string, from ...string) bool {
	for _, e := range d.Edges {
		if len(from) > 0 && !slices.Contains(from, e.From) {
			continue
		}
		for _, m := range e.Moves {
			if slices.Contains(m.Rules, rule) {
				return true
			}
		}
	}
	return false
}

func TestPerSlotDrawsWhatTheEngineDoes(t *testing.T) {
	d := diagramOf(t, "wipe_memory", "request")
	// wipe_memory.hcl, settle_overflow_recovery_gets_one_attempt: "Other
	// pending overflow recovery gets its one bounded attempt" names no
	// request in `from`, but in stop-pending the stop-pending settle rules
	// come first in file order and always win: read as written, it drew a
	// stop-pending -> none commit_reset with continue that never happens.
	if drawsRule(d, "settle_overflow_recovery_gets_one_attempt", "stop-pending", graph.EveryID) {
		t.Errorf("stop-pending draws settle_overflow_recovery_gets_one_attempt, which an earlier rule always pre-empts there: %+v", d.Edges)
	}
	if rs := rulesOn(d, "close-out", "none", "before_settle"); !slices.Contains(rs, "settle_overflow_recovery_gets_one_attempt") {
		t.Errorf("close-out -> none on before_settle: %v, want settle_overflow_recovery_gets_one_attempt", rs)
	}
	if rs := rulesOn(d, "stop-pending", "none", "before_settle"); !slices.Contains(rs, "settle_stop_pending_needs_only_a_stop") {
		t.Errorf("stop-pending -> none on before_settle: %v", rs)
	}
	// Switching off clears the request from every state: drawn once.
	if rs := rulesOn(d, graph.EveryID, "none", "toggle"); !slices.Equal(rs, []string{"toggle_off_clears_transient_state"}) {
		t.Errorf("every state -> none on toggle: %v", rs)
	}
	if rs := rulesOn(d, "close-out", "none", "toggle"); rs != nil {
		t.Errorf("toggle drawn from close-out as well as from every state: %v", rs)
	}

	// new_context.hcl, compaction_returns_reset_boundary_at_once: "Build
	// the reset boundary immediately and return it": no `from`, moves no
	// slot, and is the policy's main path: a loop in every state, drawn
	// once where the slot has three values or more.
	request, attempt := diagramOf(t, "new_context", "request"), diagramOf(t, "new_context", "attempt")
	for _, s := range []string{"none", "pending"} {
		if rs := rulesOn(request, s, s, "before_compact"); !slices.Contains(rs, "compaction_returns_reset_boundary_at_once") {
			t.Errorf("new_context request: before_compact loop in %s: %v", s, rs)
		}
	}
	if rs := rulesOn(attempt, graph.EveryID, graph.EveryID, "before_compact"); !slices.Contains(rs, "compaction_returns_reset_boundary_at_once") {
		t.Errorf("new_context attempt: before_compact loop in every state %v, edges %+v", rs, attempt.Edges)
	}
	// A rule that fires in one state without moving is a loop there.
	if rs := rulesOn(request, "pending", "pending", "tool"); !slices.Contains(rs, "new_context_repeat_reports_already_pending") {
		t.Errorf("pending loop on tool: %v", rs)
	}
	if rs := rulesOn(request, "none", "pending", "tool"); !slices.Equal(rs, []string{"new_context_marks_explicit_request"}) {
		t.Errorf("none -> pending on tool: %v", rs)
	}
	m := string(graph.Mermaid([]*graph.Diagram{request}))
	if !strings.Contains(m, "stateDiagram-v2") || !strings.Contains(m, "s0 --> s1 : tool") {
		t.Errorf("mermaid:\n%s", m)
	}
}

// Every rule that fires in the exploration is drawn in some per-slot
// diagram.
func TestEveryFiredRuleIsDrawn(t *testing.T) {
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		ds := perSlot(t, name)
		drawn := map[string]bool{}
		for _, d := range ds {
			for _, e := range d.Edges {
				for _, m := range e.Moves {
					for _, r := range m.Rules {
						drawn[r] = true
					}
				}
			}
		}
		if len(firedOf[name]) == 0 {
			t.Fatalf("%s: the exploration fired no rule", name)
		}
		for r := range firedOf[name] {
			if !drawn[r] {
				t.Errorf("%s: rule %s fires but no diagram draws it", name, r)
			}
		}
	}
}

func TestProductIsReadable(t *testing.T) {
	d, err := graph.Product(load(t, "wipe_memory"), []string{"request", "overflow"}, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[[2]string]bool{}
	for _, e := range d.Edges {
		if pairs[[2]string{e.From, e.To}] {
			t.Errorf("two edges %s -> %s: parallel edges are merged", e.From, e.To)
		}
		pairs[[2]string{e.From, e.To}] = true
		for i := 1; i < len(e.Moves); i++ {
			if e.Moves[i-1].Event >= e.Moves[i].Event {
				t.Errorf("%s -> %s: events not merged: %v", e.From, e.To, e.Events())
			}
		}
	}
	if rs := rulesOn(d, graph.EveryID, "none × idle", "session_start"); !slices.Contains(rs, "session_change_clears_transient_state") {
		t.Errorf("a session change is not drawn once from every state: %v", rs)
	}
	if len(d.Edges) > 75 {
		t.Errorf("%d edges for %d states", len(d.Edges), len(d.Nodes))
	}
}

func TestBounds(t *testing.T) {
	// The state bound cuts wipe_memory's exploration at once.
	_, err := graph.Product(load(t, "wipe_memory"), []string{"request", "overflow"}, graph.Limits{MaxStates: 50})
	var le *graph.LimitError
	if !errors.As(err, &le) || le.Bound != "states" || !strings.Contains(err.Error(), "--max-states") {
		t.Errorf("MaxStates 50: %v, want the state bound naming its flag", err)
	}
	// Two four-valued slots: 16 states, and 32 edges (each state advances
	// either slot).
	p := slotsPolicy(t, 2)
	both := []string{"s0", "s1"}
	d, err := graph.Product(p, both, graph.Limits{MaxNodes: 16, MaxEdges: 32})
	if err != nil || len(d.Nodes) != 16 || len(d.Edges) != 32 {
		t.Fatalf("16 states and 32 edges within their bounds: %v", err)
	}
	for _, c := range []struct {
		lim   graph.Limits
		bound string
	}{
		{graph.Limits{MaxNodes: 15}, "nodes"},
		{graph.Limits{MaxEdges: 31}, "edges"},
	} {
		_, err := graph.Product(p, both, c.lim)
		if !errors.As(err, &le) || le.Bound != c.bound || !strings.Contains(err.Error(), "--max-"+c.bound) {
			t.Errorf("%+v: %v, want the %s bound naming its flag", c.lim, err, c.bound)
		}
	}
}

// slotsPolicy is a policy of n four-valued slots, each advanced by its
// own tool: 4^n reachable combinations (with 8, the product that ran out
// of memory before graph had bounds).
func slotsPolicy(t *testing.T, n int) *rules.Policy {
	t.Helper()
	var b strings.Builder
	b.WriteString("policy \"eight\" {}\n")
	vals := []string{"a", "b", "c", "d"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\", \"c\", \"d\"]\n}\n", i)
	}
	b.WriteString("group \"g\" {\n")
	for i := 0; i < n; i++ {
		for j, v := range vals {
			fmt.Fprintf(&b, "  rule \"s%d_%s\" {\n    on   = \"tool\"\n    from = { s%d = %q }\n    when = \"event.name == 't%d'\"\n    to   = { s%d = %q }\n  }\n",
				i, v, i, v, i, i, vals[(j+1)%len(vals)])
		}
	}
	b.WriteString("}\n")
	p, diags := rules.Load(rules.Source{Name: "eight.hcl", Bytes: []byte(b.String())})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func TestEightSlotProductStopsAtItsBound(t *testing.T) {
	p := slotsPolicy(t, 8)
	var slots []string
	for i := 0; i < 8; i++ {
		slots = append(slots, fmt.Sprintf("s%d", i))
	}
	t0 := time.Now()
	_, err := graph.Product(p, slots, graph.Limits{MaxStates: 2000})
	var le *graph.LimitError
	if !errors.As(err, &le) || le.Bound != "states" || le.Limit != 2000 {
		t.Fatalf("8-slot product: %v, want the state bound", err)
	}
	if el := time.Since(t0); el > 30*time.Second {
		t.Errorf("stopping at the bound took %v", el)
	}
	// With room for the exploration, the drawing's own bound stops it.
	if _, err := graph.Product(slotsPolicy(t, 5), slots[:5], graph.Limits{MaxStates: 5000}); !errors.As(err, &le) || le.Bound != "nodes" {
		t.Errorf("5-slot product of 1024 states: %v, want the node bound", err)
	}
}

// The edge bound at its edge: one four-valued slot advanced in a ring
// draws exactly four edges.
func TestEdgeBoundIsExact(t *testing.T) {
	p := slotsPolicy(t, 1)
	ds, err := graph.PerSlot(p, nil, graph.Limits{MaxEdges: 4})
	if err != nil || len(ds[0].Edges) != 4 {
		t.Fatalf("MaxEdges 4: %v, %+v", err, ds)
	}
	var le *graph.LimitError
	if _, err := graph.PerSlot(p, nil, graph.Limits{MaxEdges: 3}); !errors.As(err, &le) || le.Bound != "edges" {
		t.Errorf("MaxEdges 3: %v, want the edge bound", err)
	}
	if _, err := graph.PerSlot(p, nil, graph.Limits{MaxNodes: 3}); !errors.As(err, &le) || le.Bound != "nodes" {
		t.Errorf("MaxNodes 3: %v, want the node bound", err)
	}
}

func TestNoEnumSlot(t *testing.T) {
	p, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte("policy \"p\" {}\nslot \"n\" {\n  type = int\n  initial = 0\n}\n")})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if _, err := graph.PerSlot(p, nil, graph.Limits{}); err == nil || !strings.Contains(err.Error(), "no enum slot") {
		t.Errorf("a policy without enum slots: %v", err)
	}
}

// A policy whose plans are compiled on use is drawn as one compiled
// whole: graph compiles what is left first.
func TestGraphOfAPolicyCompiledOnUse(t *testing.T) {
	later, diags := policies.Load("wipe_memory", nil, rules.WithoutProperties(), rules.CompileOnUse())
	if diags.HasErrors() || !later.CompilesOnUse() {
		t.Fatalf("load: %s", diags.Error())
	}
	got, err := graph.PerSlot(later, nil, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := graph.PerSlot(load(t, "wipe_memory"), nil, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := string(graph.DOT(got)), string(graph.DOT(want)); g != w || !strings.Contains(g, "->") {
		t.Fatalf("drawn on use:\n%s\nwant:\n%s", g, w)
	}
}

// One exploration draws what PerSlot and Product draw from their own and
// gives verify's result: report explores a policy once for the three.
func TestDrawSharesOneExploration(t *testing.T) {
	p := load(t, "wipe_memory")
	pair := []string{"request", "overflow"}
	calls := 0
	dr, err := graph.Draw(p, pair, graph.Limits{}, verify.Options{Observe: func(_, _ []lang.Value, _ string, _ []string) { calls++ }})
	if err != nil || dr.PerSlotErr != nil || dr.ProductErr != nil {
		t.Fatalf("draw: %v, %v, %v", err, dr.PerSlotErr, dr.ProductErr)
	}
	slots, err := graph.PerSlot(p, nil, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	product, err := graph.Product(p, pair, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := string(graph.DOT(dr.PerSlot)), string(graph.DOT(slots)); g != w {
		t.Errorf("per-slot diagrams differ from PerSlot's:\n%s\nwant:\n%s", g, w)
	}
	if g, w := string(graph.DOT([]*graph.Diagram{dr.Product})), string(graph.DOT([]*graph.Diagram{product})); g != w {
		t.Errorf("product differs from Product's:\n%s\nwant:\n%s", g, w)
	}
	r := verify.Check(p, verify.Options{})
	if dr.Result == nil || dr.Result.States != r.States || dr.Result.Transitions != r.Transitions || !slices.Equal(dr.Result.Holds, r.Holds) {
		t.Errorf("the drawing's result is not verify's: %+v", dr.Result)
	}
	if calls == 0 {
		t.Error("the caller's observer saw no transition")
	}
	// A product over a slot that is not an enum is refused before exploring.
	if _, err := graph.Draw(p, []string{"request", "nope"}, graph.Limits{}, verify.Options{}); err == nil || !strings.Contains(err.Error(), "nope is not an enum slot") {
		t.Errorf("product of an unknown slot: %v", err)
	}
}
