package lsp

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/policies"
)

// largePolicy is a policy of at least 2,000 lines: wipe_memory with its
// request group copied twice under other names (the README's bound is
// for a file this size).
func largePolicy(tb testing.TB) string {
	src, _ := policies.Source("wipe_memory")
	text := string(src.Bytes)
	start := strings.Index(text, "group \"request\" {")
	end := strings.Index(text, "group \"manual_warning\" {")
	group := text[start:end]
	rule := regexp.MustCompile(`rule "([a-z_0-9]+)"`)
	var b strings.Builder
	b.WriteString(text)
	for i := 1; strings.Count(b.String(), "\n") < 2000; i++ {
		g := strings.Replace(group, `group "request"`, fmt.Sprintf(`group "request_copy%d"`, i), 1)
		b.WriteString("\n" + rule.ReplaceAllString(g, fmt.Sprintf(`rule "${1}_copy%d"`, i)))
	}
	return b.String()
}

func TestLargePolicyLoads(t *testing.T) {
	c := newClient(t, Options{})
	text := largePolicy(t)
	if n := strings.Count(text, "\n"); n < 2000 {
		t.Fatalf("%d lines", n)
	}
	uri := fileURI(filepath.Join(t.TempDir(), "large.hcl"))
	c.open(uri, text)
	if d := c.diagnostics(uri, 1); hasErrors(d) {
		t.Fatalf("large policy: %v", d)
	}
}

// BenchmarkLargePolicy times each answer for a 2,000-line policy over the
// pipe, as an editor sees it: a change checked and its diagnostics
// published, completion, hover, definition, references, symbols and
// formatting, at a position near the end of the file.
func BenchmarkLargePolicy(b *testing.B) {
	c := newClient(&testing.T{}, Options{CacheDir: b.TempDir()})
	text := largePolicy(b)
	uri := fileURI(filepath.Join(b.TempDir(), "large.hcl"))
	c.open(uri, text)
	c.diagnostics(uri, 1)
	lines := strings.Split(text, "\n")
	line, col := 0, 0
	for i, l := range lines {
		if j := strings.Index(l, "state.request"); j >= 0 {
			line, col = i, j+len("state.")
		}
	}
	pos := docPos(uri, line, col)
	var raw json.RawMessage
	version := 1
	run(b, "didChange+diagnostics", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			version++
			change(c, uri, version, edit(line, 0, line, 0, " "))
			c.diagnostics(uri, version)
		}
	})
	for _, m := range []struct{ name, method string }{
		{"completion", "textDocument/completion"}, {"hover", "textDocument/hover"},
		{"definition", "textDocument/definition"},
	} {
		run(b, m.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.call(m.method, pos, &raw)
			}
		})
	}
	run(b, "references", func(b *testing.B) {
		p := docPos(uri, line, col)
		p["context"] = map[string]any{"includeDeclaration": true}
		for i := 0; i < b.N; i++ {
			c.call("textDocument/references", p, &raw)
		}
	})
	run(b, "symbols", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &raw)
		}
	})
	run(b, "formatting", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &raw)
		}
	})
	// Typing: a change followed at once by a completion, with the default
	// debounce. The completion parses the new text itself; the check
	// waits for a pause.
	typing := newClient(&testing.T{}, Options{CacheDir: b.TempDir(), Debounce: DefaultDebounce})
	typing.open(uri, text)
	typing.diagnostics(uri, 1)
	run(b, "didChange+completion", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			version++
			change(typing, uri, version, edit(line, 0, line, 0, " "))
			typing.call("textDocument/completion", pos, &raw)
		}
	})
}

// run is b.Run reporting also the process's CPU time per operation
// (cpu-ms/op), which a loaded machine inflates far less than wall time.
func run(b *testing.B, name string, f func(b *testing.B)) {
	b.Run(name, func(b *testing.B) {
		start := processCPU()
		f(b)
		b.ReportMetric(float64(processCPU()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
}

// BenchmarkTestFileCheck times the check of wipe_memory's own test file
// (2,400 lines, 126 runs): parse, the policy loaded per set of overrides,
// every run.
func BenchmarkTestFileCheck(b *testing.B) {
	src, _ := policies.TestSource("wipe_memory")
	run(b, "wipe_memory.test.hcl", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if ds := problems(testKind, src.Name, src.Bytes, false, func(string) []byte { return nil }, nil); ds.HasErrors() {
				b.Fatal(ds)
			}
		}
	})
}

// BenchmarkTestFileCheckBounded times the check of a test file of 1,500
// runs, each with its own param value (a whole load of the policy each):
// within the check's budget (32 loads) and, for comparison, without it.
func BenchmarkTestFileCheckBounded(b *testing.B) {
	var src strings.Builder
	src.WriteString("policy = \"wipe_memory\"\n")
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&src, "run \"r%d\" {\n  params = { warning_runway = %d }\n  event \"turn_end\" {}\n}\n", i, 1000+i)
	}
	for _, tc := range []struct {
		name string
		b    func() *budget
	}{
		{"budget", func() *budget { return nil }},
		{"no budget", func() *budget { return &budget{loadBytes: math.MinInt / 2, events: math.MinInt / 2} }},
	} {
		run(b, tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				problems(testKind, "/x/a.test.hcl", []byte(src.String()), false, func(string) []byte { return nil }, tc.b())
			}
		})
	}
}
