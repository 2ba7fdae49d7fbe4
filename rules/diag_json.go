package rules

import "github.com/hashicorp/hcl/v2"

// DiagnosticJSON is a diagnostic as the machine-readable outputs give it
// (`check --json`, the server's load errors): one shape for every consumer.
type DiagnosticJSON struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

// DiagnosticsJSON converts diagnostics to their JSON shape, in order.
func DiagnosticsJSON(ds hcl.Diagnostics) []DiagnosticJSON {
	out := make([]DiagnosticJSON, 0, len(ds))
	for _, d := range ds {
		j := DiagnosticJSON{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			j.Severity = "warning"
		}
		if d.Subject != nil {
			j.File, j.Line, j.Column = d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column
		}
		out = append(out, j)
	}
	return out
}
