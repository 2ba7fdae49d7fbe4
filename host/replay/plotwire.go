package replay

import (
	"encoding/json"
	"fmt"
	"io"
)

// Plots are drawn by a process of their own, resetpolicy-plot, so that
// the binary Pi starts at every session does not link the plotting
// library, whose package init parsed its twelve fonts at every start of
// every command (see docs/performance.md). A PlotRequest is what the
// command that draws sends that process on its standard input.

// PlotProtocol numbers the request's form: the drawing process refuses a
// request of another, so a mismatched pair of binaries says so instead of
// drawing something else.
const PlotProtocol = 1

// MaxPlotRequestBytes bounds a request read: a panel's points are a few
// bytes a turn, and a plot has at most MaxPlotSessions panels.
const MaxPlotRequestBytes = 256 << 20

// maxPlotRequest is MaxPlotRequestBytes, lowered by a test.
var maxPlotRequest = MaxPlotRequestBytes

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// PlotRequest asks for sessions to be drawn to Path.
type PlotRequest struct {
	Protocol int         `json:"protocol"`
	Path     string      `json:"path"`
	Sessions []plotPanel `json:"sessions"`
}

// plotPanel is a PlotSession as it travels: of each report, what a plot
// draws.
type plotPanel struct {
	Reports    []plotReport  `json:"reports"`
	Thresholds [][]Threshold `json:"thresholds"`
}

type plotReport struct {
	File          string     `json:"file"`
	Name          string     `json:"name,omitempty"`
	Label         string     `json:"label,omitempty"`
	ContextWindow int64      `json:"context_window"`
	Points        []Point    `json:"points"`
	Decisions     []Decision `json:"decisions"`
}

// WritePlotRequest writes the request to draw sessions to path.
func WritePlotRequest(w io.Writer, path string, sessions []PlotSession) error {
	req := PlotRequest{Protocol: PlotProtocol, Path: path}
	for _, s := range sessions {
		p := plotPanel{Thresholds: s.Thresholds}
		for _, r := range s.Reports {
			p.Reports = append(p.Reports, plotReport{File: r.File, Name: r.Name, Label: r.Label, ContextWindow: r.ContextWindow, Points: r.Points, Decisions: r.Decisions})
		}
		req.Sessions = append(req.Sessions, p)
	}
	return json.NewEncoder(w).Encode(req)
}

// ReadPlotRequest reads a request WritePlotRequest wrote: the path and the
// sessions, each report with what a plot draws of it.
func ReadPlotRequest(r io.Reader) (string, []PlotSession, error) {
	var req PlotRequest
	in := &countingReader{r: io.LimitReader(r, int64(maxPlotRequest)+1)}
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		if in.n > maxPlotRequest {
			return "", nil, fmt.Errorf("the plot request is over %d bytes", maxPlotRequest)
		}
		return "", nil, fmt.Errorf("the plot request is not one: %v", err)
	}
	if req.Protocol != PlotProtocol {
		return "", nil, fmt.Errorf("the plot request is of protocol %d; this resetpolicy-plot reads protocol %d: install resetpolicy and resetpolicy-plot from one version", req.Protocol, PlotProtocol)
	}
	if len(req.Sessions) > MaxPlotSessions {
		return "", nil, fmt.Errorf("the plot request has %d sessions; a plot has at most %d", len(req.Sessions), MaxPlotSessions)
	}
	var out []PlotSession
	for i, p := range req.Sessions {
		if len(p.Reports) == 0 || len(p.Thresholds) != len(p.Reports) {
			return "", nil, fmt.Errorf("session %d of the plot request has %d reports and %d lists of thresholds, not one of each for each setting", i+1, len(p.Reports), len(p.Thresholds))
		}
		s := PlotSession{Thresholds: p.Thresholds}
		for _, r := range p.Reports {
			s.Reports = append(s.Reports, &Report{File: r.File, Name: r.Name, Label: r.Label, ContextWindow: r.ContextWindow, Points: r.Points, Decisions: r.Decisions})
		}
		out = append(out, s)
	}
	return req.Path, out, nil
}
