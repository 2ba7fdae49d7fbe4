package render_test

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/host/render"
)

// svgDoc is what a page embedding the SVG reads: states and edges as
// groups with ids, data attributes and titles.
type svgDoc struct {
	Groups []struct {
		Class string `xml:"class,attr"`
		ID    string `xml:"id,attr"`
		State string `xml:"data-state,attr"`
		From  string `xml:"data-from,attr"`
		To    string `xml:"data-to,attr"`
		Rules string `xml:"data-rules,attr"`
		Title string `xml:"title"`
		Rect  *struct {
			X string `xml:"x,attr"`
			W string `xml:"width,attr"`
		} `xml:"rect"`
		Texts []struct {
			X   string `xml:"x,attr"`
			Len string `xml:"textLength,attr"`
		} `xml:"text"`
	} `xml:"g"`
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSVGNamesStatesEdgesAndRules(t *testing.T) {
	d, err := graph.Product(load(t, "wipe_memory"), []string{"request", "overflow"}, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.SVG([]*graph.Diagram{d})
	if err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	states, edges := 0, 0
	ids := map[string]bool{}
	for _, g := range doc.Groups {
		if ids[g.ID] {
			t.Errorf("id %s twice", g.ID)
		}
		ids[g.ID] = true
		switch {
		case strings.HasPrefix(g.Class, "state"):
			states++
			if g.State == "" || !strings.HasPrefix(g.Title, strings.ReplaceAll(g.State, "*", "every state")) {
				t.Errorf("state %s: data-state %q title %q", g.ID, g.State, g.Title)
			}
			// Text stays inside its box: its set width fits between the
			// paddings.
			x, w := num(t, g.Rect.X), num(t, g.Rect.W)
			for _, tx := range g.Texts {
				if tl, tx0 := num(t, tx.Len), num(t, tx.X); tx0 < x || tx0+tl > x+w {
					t.Errorf("state %s: text %.1f+%.1f outside box %.1f+%.1f", g.State, tx0, tl, x, w)
				}
			}
		case g.Class == "edge":
			edges++
			// The title names the ends and, per event, the rules.
			if !strings.HasPrefix(g.Title, g.From+" → "+g.To+"\n") || !strings.Contains(g.Title, ": ") {
				t.Errorf("edge %s title %q", g.ID, g.Title)
			}
			for _, r := range strings.Fields(g.Rules) {
				if !strings.Contains(g.Title, r) {
					t.Errorf("edge %s: data-rules names %s, its title does not", g.ID, r)
				}
			}
			if g.Rules == "" {
				t.Errorf("edge %s has no data-rules", g.ID)
			}
		}
	}
	if states != len(d.Nodes) || edges != len(d.Edges) {
		t.Errorf("%d states and %d edges drawn, diagram has %d and %d", states, edges, len(d.Nodes), len(d.Edges))
	}
	if !strings.Contains(string(b), `font-family="&#39;Liberation Sans&#39;, Arimo, Arial, Helvetica, sans-serif"`) {
		t.Errorf("font family: %.300s", b)
	}
	if !strings.Contains(string(b), "turn_end: turn_end_overflow_arms_recovery") {
		t.Error("the rules behind the edges are missing")
	}
}

// chain builds a diagram of n states in a ring, each also reaching the
// first: the shape that took Graphviz minutes at 512 states.
func chain(n int) *graph.Diagram {
	d := &graph.Diagram{Title: "ring"}
	for i := 0; i < n; i++ {
		d.Nodes = append(d.Nodes, graph.Node{ID: fmt.Sprint(i), Label: fmt.Sprintf("state %d", i), Initial: i == 0})
		d.Edges = append(d.Edges, graph.Edge{From: fmt.Sprint(i), To: fmt.Sprint((i + 1) % n), Moves: []graph.Move{{Event: "tool", Rules: []string{"next"}}}})
		if i > 1 {
			d.Edges = append(d.Edges, graph.Edge{From: fmt.Sprint(i), To: "0", Moves: []graph.Move{{Event: "toggle", Rules: []string{"off"}}}})
		}
	}
	return d
}

func TestLayoutIsBounded(t *testing.T) {
	t0 := time.Now()
	b, err := render.Render([]*graph.Diagram{chain(300)}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > 20*time.Second || len(b) == 0 {
		t.Errorf("300 states: %d bytes in %v", len(b), el)
	}
	// Past the segment bound: an error at once, not minutes of work.
	t0 = time.Now()
	if _, err := render.Render([]*graph.Diagram{chain(512)}, "svg"); err == nil || !strings.Contains(err.Error(), "edge segments") {
		t.Errorf("512 states in a ring: %v, want the segment bound", err)
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("the segment bound took %v", el)
	}
	// Past the pixel bound, PNG refuses.
	if _, err := render.Render([]*graph.Diagram{chain(300)}, "png"); err == nil || !strings.Contains(err.Error(), "pixels") {
		t.Errorf("png of 300 states: %v, want the pixel bound", err)
	}
}
