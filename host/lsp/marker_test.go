package lsp

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/policies"
)

// marker is one `# ^ OP: ARGS` comment of a fixture: the position is the
// caret's column on the nearest line above that is not a marker.
type marker struct {
	line, char int
	op, args   string
	at         int // the marker's own line, for messages
}

var markerRe = regexp.MustCompile(`^\s*#\s*\^ (complete|hover|definition|references): (.*)$`)

func markers(t *testing.T, text string) []marker {
	t.Helper()
	lines := strings.Split(text, "\n")
	var out []marker
	target := -1
	for i, l := range lines {
		m := markerRe.FindStringSubmatch(l)
		if m == nil {
			target = i
			continue
		}
		if target < 0 {
			t.Fatalf("line %d: a marker needs a line above it", i+1)
		}
		out = append(out, marker{line: target, char: strings.IndexByte(l, '^'), op: m[1], args: strings.TrimSpace(m[2]), at: i + 1})
	}
	return out
}

// TestMarkers drives completion, hover, definition and references at
// every marked position of the fixtures.
func TestMarkers(t *testing.T) {
	for _, name := range []string{"policy.hcl", "composed.hcl", "tiny.test.hcl"} {
		t.Run(name, func(t *testing.T) {
			c := newClient(t, Options{})
			uri, text := readFixture(t, name)
			c.open(uri, text)
			if d := c.diagnostics(uri, 1); hasErrors(d) {
				t.Fatalf("fixture has errors: %v", d)
			}
			ms := markers(t, text)
			if len(ms) == 0 {
				t.Fatal("no markers")
			}
			for _, m := range ms {
				where := fmt.Sprintf("%s:%d (%s at %d:%d)", name, m.at, m.op, m.line+1, m.char+1)
				pos := docPos(uri, m.line, m.char)
				switch m.op {
				case "complete":
					var list protocol.CompletionList
					c.call("textDocument/completion", pos, &list)
					labels := map[string]bool{}
					for _, it := range list.Items {
						labels[it.Label] = true
					}
					for _, want := range strings.Split(m.args, ",") {
						want = strings.TrimSpace(want)
						if absent, ok := strings.CutPrefix(want, "!"); ok {
							if labels[absent] {
								t.Errorf("%s: %q offered", where, absent)
							}
						} else if !labels[want] {
							t.Errorf("%s: %q not offered; got %v", where, want, keys(labels))
						}
					}
				case "hover":
					var h struct {
						Contents struct{ Value string } `json:"contents"`
					}
					c.call("textDocument/hover", pos, &h)
					if !strings.Contains(h.Contents.Value, m.args) {
						t.Errorf("%s: hover %q lacks %q", where, h.Contents.Value, m.args)
					}
				case "definition":
					var locs []protocol.Location
					c.call("textDocument/definition", pos, &locs)
					file, builtin := strings.CutPrefix(m.args, "builtin:")
					file, line, _ := strings.Cut(file, ":")
					if pattern, ok := strings.CutPrefix(line, "/"); ok {
						line = lineOf(t, file, builtin, strings.TrimSuffix(pattern, "/"))
					}
					if len(locs) != 1 {
						t.Errorf("%s: %d locations, want 1", where, len(locs))
						continue
					}
					got := fmt.Sprintf("%s:%d", path.Base(locs[0].URI), locs[0].Range.Start.Line+1)
					if got != file+":"+line {
						t.Errorf("%s: definition at %s, want %s:%s", where, got, file, line)
					}
					if builtin != strings.Contains(locs[0].URI, "/resetpolicy/builtin/") {
						t.Errorf("%s: definition in %s; in a built-in: %v", where, locs[0].URI, builtin)
					}
				case "references":
					var locs []protocol.Location
					p := pos
					p["context"] = map[string]any{"includeDeclaration": true}
					c.call("textDocument/references", p, &locs)
					if fmt.Sprint(len(locs)) != m.args {
						t.Errorf("%s: %d references, want %s: %v", where, len(locs), m.args, locs)
					}
				}
			}
			c.shutdown()
		})
	}
}

// lineOf is the line (from 1) of the first occurrence of text in a
// fixture or a built-in's source, for a definition marker written as
// FILE:/TEXT/ so that it does not break when FILE's lines move.
func lineOf(t *testing.T, file string, builtin bool, text string) string {
	var src string
	if builtin {
		s, _ := policies.Source(strings.TrimSuffix(file, ".hcl"))
		src = string(s.Bytes)
	} else {
		_, src = readFixture(t, file)
	}
	i := strings.Index(src, text)
	if i < 0 {
		t.Fatalf("%s has no %q", file, text)
	}
	return fmt.Sprint(strings.Count(src[:i], "\n") + 1)
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasErrors(ds []protocol.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity != nil && *d.Severity == protocol.DiagnosticSeverityError {
			return true
		}
	}
	return false
}
