package graph

import (
	"bytes"
	"fmt"
	"strings"
)

// DOT writes the diagrams as one Graphviz digraph (one cluster per
// diagram when there are several): edges labelled by their events, the
// rules behind each in its tooltip. The text is deterministic, so a test
// can compare it.
func DOT(ds []*Diagram) []byte {
	var b bytes.Buffer
	b.WriteString("digraph policy {\n  rankdir=TB;\n  bgcolor=white;\n  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=11];\n  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for i, d := range ds {
		indent := "  "
		prefix := ""
		if len(ds) > 1 {
			fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s;\n", i, quote(d.Title))
			indent = "    "
			prefix = fmt.Sprintf("d%d:", i)
		} else {
			fmt.Fprintf(&b, "  label=%s;\n  labelloc=t;\n", quote(d.Title))
		}
		for _, n := range d.Nodes {
			attrs := ""
			switch {
			case n.Every:
				attrs = ", style=dashed"
			case n.Unreached:
				attrs = ", style=\"rounded,dashed\", fontcolor=gray40, tooltip=\"not reached\""
			case n.Initial:
				attrs = ", penwidth=2"
			}
			fmt.Fprintf(&b, "%s%s [label=%s%s];\n", indent, quote(prefix+n.ID), quote(n.Label), attrs)
		}
		for _, e := range d.Edges {
			fmt.Fprintf(&b, "%s%s -> %s [label=%s, tooltip=%s];\n", indent, quote(prefix+e.From), quote(prefix+e.To),
				quote(strings.Join(e.Events(), "\n")), quote(e.RuleText()))
		}
		if len(ds) > 1 {
			b.WriteString("  }\n")
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\l`)
	out := r.Replace(s)
	if strings.Contains(s, "\n") {
		out += `\l`
	}
	return `"` + out + `"`
}

// Mermaid writes the diagrams as Mermaid state diagrams, which render in
// a README or an issue.
func Mermaid(ds []*Diagram) []byte {
	var b bytes.Buffer
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "---\ntitle: %q\n---\nstateDiagram-v2\n", d.Title)
		ids := map[string]string{}
		for j, n := range d.Nodes {
			id := fmt.Sprintf("s%d", j)
			ids[n.ID] = id
			fmt.Fprintf(&b, "  state %q as %s\n", n.Label, id)
			if n.Initial {
				fmt.Fprintf(&b, "  [*] --> %s\n", id)
			}
		}
		for _, e := range d.Edges {
			fmt.Fprintf(&b, "  %s --> %s : %s\n", ids[e.From], ids[e.To], mermaidText(strings.Join(e.Events(), ", ")))
		}
	}
	return b.Bytes()
}

func mermaidText(s string) string {
	return strings.NewReplacer(":", "#58;", ";", "#59;").Replace(s)
}
