package rules

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

func errorAt(rng *hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng}
}

func ptr(r hcl.Range) *hcl.Range { return &r }

// WriteDiagnostics prints diagnostics the way compilers do:
//
//	file.hcl:12:19: error: Unknown fact
//	  event turn_end has no fact "tokenz"; did you mean "tokens"?
//	     12 |     when = "event.tokenz > 0"
//	        |                   ^^^^^^
//
// sources maps file names to their bytes for the snippet; a diagnostic
// without a subject (an override from the command line) prints without
// one.
func WriteDiagnostics(w io.Writer, sources map[string][]byte, diags hcl.Diagnostics) error {
	var buf bytes.Buffer
	for _, d := range diags {
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
			writeSnippet(&buf, sources[d.Subject.Filename], *d.Subject)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeSnippet(buf *bytes.Buffer, src []byte, rng hcl.Range) {
	if src == nil || rng.Start.Line < 1 {
		return
	}
	lines := bytes.Split(src, []byte("\n"))
	if rng.Start.Line > len(lines) {
		return
	}
	line := strings.ReplaceAll(string(lines[rng.Start.Line-1]), "\t", " ")
	line = strings.TrimRight(line, "\r")
	num := fmt.Sprintf("%d", rng.Start.Line)
	fmt.Fprintf(buf, "  %s | %s\n", num, line)
	width := 1
	if rng.End.Line == rng.Start.Line && rng.End.Column > rng.Start.Column {
		width = rng.End.Column - rng.Start.Column
	}
	if rest := utf8.RuneCountInString(line) - (rng.Start.Column - 1); width > rest && rest > 0 {
		width = rest
	}
	fmt.Fprintf(buf, "  %s | %s%s\n", strings.Repeat(" ", len(num)), strings.Repeat(" ", max(rng.Start.Column-1, 0)), strings.Repeat("^", width))
}

// FormatDiagnostics is WriteDiagnostics into a string.
func FormatDiagnostics(sources map[string][]byte, diags hcl.Diagnostics) string {
	var b strings.Builder
	_ = WriteDiagnostics(&b, sources, diags)
	return b.String()
}
