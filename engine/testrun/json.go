package testrun

import (
	"encoding/json"
	"io"
)

type jsonFailure struct {
	Where string `json:"where"`
	What  string `json:"what,omitempty"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Want  string `json:"want,omitempty"`
	Got   string `json:"got,omitempty"`
	Text  string `json:"text,omitempty"`
}

type jsonResult struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Run      string        `json:"run,omitempty"`
	Policy   string        `json:"policy,omitempty"`
	Passed   bool          `json:"passed"`
	Failures []jsonFailure `json:"failures,omitempty"`
}

type jsonReport struct {
	Results  []jsonResult `json:"results"`
	Coverage []Coverage   `json:"coverage,omitempty"`
	Passed   int          `json:"passed"`
	Failed   int          `json:"failed"`
}

// WriteJSON prints the report as one JSON object: every run with its
// failures, the coverage per policy when asked, and the totals.
func (rep *Report) WriteJSON(w io.Writer, coverage bool) error {
	out := jsonReport{Results: []jsonResult{}, Passed: rep.Passed(), Failed: rep.Failed()}
	for _, r := range rep.Results {
		jr := jsonResult{Name: r.Name(), File: r.File, Run: r.Run, Policy: r.Policy, Passed: r.Passed()}
		for _, f := range r.Failures {
			jf := jsonFailure{Where: f.Where, What: f.What, Want: f.Want, Got: f.Got, Text: f.Text}
			if f.Pos != nil {
				jf.File, jf.Line = f.Pos.Filename, f.Pos.Start.Line
			}
			jr.Failures = append(jr.Failures, jf)
		}
		out.Results = append(out.Results, jr)
	}
	if coverage {
		out.Coverage = rep.Coverage()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
