package replay_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// A request keeps every figure a plot draws; one that is not a request of
// this protocol, or that is over the bounds, is refused with the reason.
func TestPlotRequest(t *testing.T) {
	s := replay.PlotSession{
		Reports:    []*replay.Report{{File: "f.jsonl", Name: "n", Label: "l", ContextWindow: 9, Points: []replay.Point{{Turn: 1, Tokens: 2, Kind: replay.Estimated, Recorded: 2, RecordedKind: replay.Measured}}, Decisions: []replay.Decision{{Turn: 1, Event: "request", Tokens: 2, Kind: replay.Measured, Rules: []string{"r"}, Effects: []map[string]any{{"effect": "inject", "message": "m"}}}}}},
		Thresholds: [][]replay.Threshold{{{Name: "t", Tokens: 5}}},
	}
	var b bytes.Buffer
	if err := replay.WritePlotRequest(&b, "p.svg", []replay.PlotSession{s}); err != nil {
		t.Fatal(err)
	}
	path, got, err := replay.ReadPlotRequest(bytes.NewReader(b.Bytes()))
	if err != nil || path != "p.svg" || len(got) != 1 {
		t.Fatalf("%q %v %v", path, got, err)
	}
	if g, w := fmt.Sprintf("%+v %+v", *got[0].Reports[0], got[0].Thresholds), fmt.Sprintf("%+v %+v", *s.Reports[0], s.Thresholds); g != w {
		t.Errorf("read back\n%s\nwant\n%s", g, w)
	}
	req := b.String()
	many := `{"protocol":1,"path":"p.svg","sessions":[` + strings.Repeat(`{"reports":[{}],"thresholds":[[]]},`, replay.MaxPlotSessions) + `{"reports":[{}],"thresholds":[[]]}]}`
	for _, tc := range []struct{ in, want string }{
		{strings.Replace(req, `"protocol":1`, `"protocol":2`, 1), "protocol 2; this resetpolicy-plot reads protocol 1"},
		{"not json", "is not one"},
		{many, fmt.Sprintf("at most %d", replay.MaxPlotSessions)},
		{`{"protocol":1,"path":"p.svg","sessions":[{"reports":[{}],"thresholds":[]}]}`, "1 reports and 0 lists of thresholds"},
		{`{"protocol":1,"path":"p.svg","sessions":[{"reports":[],"thresholds":[]}]}`, "0 reports"},
	} {
		if _, _, err := replay.ReadPlotRequest(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}
