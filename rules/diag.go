package rules

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

func errorAt(rng *hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng}
}

func ptr(r hcl.Range) *hcl.Range { return &r }

// MaxDiagnosticsShown is how many diagnostics WriteDiagnostics prints; the
// rest are counted in a last line, "and N more".
const MaxDiagnosticsShown = 20

// MaxSnippetWidth is how many characters of a source line a snippet
// shows: a file of one long line is not quoted whole.
const MaxSnippetWidth = 120

// WriteDiagnostics prints diagnostics the way compilers do:
//
//	file.hcl:12:19: error: Unknown fact
//	  event turn_end has no fact "tokenz"; did you mean "tokens"?
//	     12 |     when = "event.tokenz > 0"
//	        |                   ^^^^^^
//
// sources maps file names to their bytes for the snippet; a diagnostic
// without a subject (an override from the command line) prints without
// one. At most MaxDiagnosticsShown are printed.
func WriteDiagnostics(w io.Writer, sources map[string][]byte, diags hcl.Diagnostics) error {
	return WriteDiagnosticsN(w, sources, diags, MaxDiagnosticsShown)
}

// WriteDiagnosticsN is WriteDiagnostics printing at most limit
// diagnostics. Each source is split into lines once, however many
// diagnostics point into it, so the cost is linear in the sources and the
// diagnostics.
func WriteDiagnosticsN(w io.Writer, sources map[string][]byte, diags hcl.Diagnostics, limit int) error {
	var buf bytes.Buffer
	lines := map[string][]int{} // file name -> byte offset of each line start
	shown := diags
	if limit >= 0 && len(shown) > limit {
		shown = shown[:limit]
	}
	for _, d := range shown {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		if d.Subject != nil {
			fmt.Fprintf(&buf, "%s:%d:%d: %s: %s\n", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, sev, d.Summary)
		} else {
			fmt.Fprintf(&buf, "%s: %s\n", sev, d.Summary)
		}
		if d.Detail != "" {
			for _, line := range strings.Split(d.Detail, "\n") {
				fmt.Fprintf(&buf, "  %s\n", line)
			}
		}
		if d.Subject != nil {
			src := sources[d.Subject.Filename]
			starts, ok := lines[d.Subject.Filename]
			if !ok && src != nil {
				starts = lineStarts(src)
				lines[d.Subject.Filename] = starts
			}
			writeSnippet(&buf, src, starts, *d.Subject)
		}
	}
	if n := len(diags) - len(shown); n > 0 {
		fmt.Fprintf(&buf, "and %d more\n", n)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func writeSnippet(buf *bytes.Buffer, src []byte, starts []int, rng hcl.Range) {
	if src == nil || rng.Start.Line < 1 || rng.Start.Line > len(starts) {
		return
	}
	end := len(src)
	if rng.Start.Line < len(starts) {
		end = starts[rng.Start.Line] - 1
	}
	line := strings.ReplaceAll(string(src[starts[rng.Start.Line-1]:end]), "\t", " ")
	line = strings.TrimRight(line, "\r")
	col := max(rng.Start.Column-1, 0) // runes before the caret
	width := 1
	if rng.End.Line == rng.Start.Line && rng.End.Column > rng.Start.Column {
		width = rng.End.Column - rng.Start.Column
	}
	runes := []rune(line)
	if len(runes) > MaxSnippetWidth {
		// Keep a window of the line around the caret, marked with "…".
		from := min(max(col-MaxSnippetWidth/2, 0), len(runes))
		to := min(from+MaxSnippetWidth, len(runes))
		prefix, suffix := "", ""
		if from > 0 {
			prefix = "…"
		}
		if to < len(runes) {
			suffix = "…"
		}
		line = prefix + string(runes[from:to]) + suffix
		col = col - from + len([]rune(prefix))
		runes = []rune(line)
	}
	if rest := len(runes) - col; width > rest && rest > 0 {
		width = rest
	}
	num := fmt.Sprintf("%d", rng.Start.Line)
	fmt.Fprintf(buf, "  %s | %s\n", num, line)
	fmt.Fprintf(buf, "  %s | %s%s\n", strings.Repeat(" ", len(num)), strings.Repeat(" ", col), strings.Repeat("^", width))
}

// FormatDiagnostics is WriteDiagnostics into a string.
func FormatDiagnostics(sources map[string][]byte, diags hcl.Diagnostics) string {
	var b strings.Builder
	_ = WriteDiagnostics(&b, sources, diags)
	return b.String()
}

// FormatDiagnosticsN is WriteDiagnosticsN into a string.
func FormatDiagnosticsN(sources map[string][]byte, diags hcl.Diagnostics, limit int) string {
	var b strings.Builder
	_ = WriteDiagnosticsN(&b, sources, diags, limit)
	return b.String()
}
