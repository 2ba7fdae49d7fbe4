package testrun

import (
	"encoding/xml"
	"io"
	"path"
	"path/filepath"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one testsuite per test file,
// one testcase per run. A failed run has a <failure> with the same text
// WriteText prints; an invalid test file is one testcase with an <error>.
// Times are 0: runs are deterministic and not timed.
func (rep *Report) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "resetpolicy test"}
	index := map[string]int{}
	for _, r := range rep.Results {
		i, ok := index[r.File]
		if !ok {
			i = len(doc.Suites)
			index[r.File] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: filepath.ToSlash(r.File), Time: "0"})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: r.Run, Classname: strings.TrimSuffix(path.Base(filepath.ToSlash(r.File)), ".test.hcl"), Time: "0"}
		if r.Pos != nil {
			c.File, c.Line = filepath.ToSlash(r.Pos.Filename), r.Pos.Start.Line
		}
		s.Tests++
		doc.Tests++
		if !r.Passed() {
			p := &junitProblem{Message: r.Failures[0].Summary(), Type: "failure", Text: r.Text()}
			if r.invalid {
				c.Name = "(invalid test file)"
				p.Type = "error"
				c.Error = p
				s.Errors++
				doc.Errors++
			} else {
				c.Failure = p
				s.Failures++
				doc.Failures++
			}
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
