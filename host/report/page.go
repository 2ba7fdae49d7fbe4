package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.js
	pageJS string
)

// MaxPageBytes bounds a page: a document that would encode to more is an
// error rather than a page no browser opens. The replay section's own
// bounds (MaxCharts, ChartBudget, MaxListed) keep real corpora far below
// it.
const MaxPageBytes = 10 << 20

// Write writes the page for d: markup, style, script and the document as
// JSON, all in one file that loads nothing from anywhere.
func Write(w io.Writer, d *Doc) error {
	// encoding/json escapes <, > and & (and U+2028/9), so the data cannot
	// close its script element.
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if len(data) > MaxPageBytes {
		return fmt.Errorf("report: the page's data is %d bytes, over the %d-byte bound", len(data), MaxPageBytes)
	}
	title := "resetpolicy report"
	if d.Policy != nil {
		var s struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(d.Policy.Summary, &s) == nil && s.Name != "" {
			title += ": " + s.Name
		}
	}
	page := strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(title),
		"{{CSS}}", pageCSS,
		"{{JS}}", pageJS,
		"{{DATA}}", string(data),
	).Replace(pageHTML)
	_, err = io.WriteString(w, page)
	return err
}
