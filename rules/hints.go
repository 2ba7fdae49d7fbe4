package rules

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
)

// quoteHints adds a hint to HCL's generic syntax errors when the line is
// an expression string cut short by a double quote inside it: expressions
// are written in HCL strings, so their own string literals take single
// quotes.
func quoteHints(src []byte, diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Subject == nil || (d.Summary != "Missing newline after argument" && d.Summary != "Extra characters after expression") {
			continue
		}
		lines := bytes.Split(src, []byte("\n"))
		if d.Subject.Start.Line < 1 || d.Subject.Start.Line > len(lines) {
			continue
		}
		line := lines[d.Subject.Start.Line-1]
		_, value, ok := bytes.Cut(line, []byte("="))
		if !ok || bytes.Count(value, []byte(`"`)) < 3 {
			continue
		}
		d.Detail += "\nThis looks like a double quote inside an expression string, which ends the string early. " +
			"Write the expression's own strings with single quotes: \"event.name == 'wipe_memory'\"."
	}
	return diags
}
