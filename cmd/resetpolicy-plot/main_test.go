package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "go install github.com/resetpolicy/resetpolicy/cmd/resetpolicy-plot@latest") {
		t.Errorf("--help: exit %d %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"x.svg"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "takes no arguments") {
		t.Errorf("an argument: exit %d %q", code, errb.String())
	}
	errb.Reset()
	if code := run(nil, strings.NewReader(`{"protocol":7}`), &out, &errb); code != 1 || !strings.Contains(errb.String(), "protocol 7") {
		t.Errorf("another protocol: exit %d %q", code, errb.String())
	}
	path := filepath.Join(t.TempDir(), "p.svg")
	var req bytes.Buffer
	s := replay.PlotSession{Reports: []*replay.Report{{File: "f.jsonl", ContextWindow: 1000, Points: []replay.Point{{Turn: 1, Tokens: 10, Kind: replay.Measured}}}}, Thresholds: [][]replay.Threshold{nil}}
	if err := replay.WritePlotRequest(&req, path, []replay.PlotSession{s}); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run(nil, &req, &out, &errb); code != 0 {
		t.Fatalf("a request: exit %d %s", code, errb.String())
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("no SVG written: %v", err)
	}
	errb.Reset()
	req.Reset()
	_ = replay.WritePlotRequest(&req, filepath.Join(t.TempDir(), "p.gif"), []replay.PlotSession{s})
	if code := run(nil, &req, &out, &errb); code != 1 || !strings.Contains(errb.String(), ".svg or .png") {
		t.Errorf("a .gif: exit %d %q", code, errb.String())
	}
}
