package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// plotName is the program that draws plots (cmd/resetpolicy-plot).
const plotName = "resetpolicy-plot"

// maxPlotErr bounds what is kept of the drawing program's error output.
const maxPlotErr = 64 << 10

// drawPlot has resetpolicy-plot draw sessions to path: plotting runs in a
// process of its own, so that this binary, which Pi starts at every
// session, does not link the plotting library (TestBinaryLinksNoPlot).
func drawPlot(path string, sessions []replay.PlotSession) error {
	if len(sessions) == 0 {
		return errors.New("no session to plot")
	}
	prog, err := plotProgram()
	if err != nil {
		return err
	}
	var req bytes.Buffer
	if err := replay.WritePlotRequest(&req, path, sessions); err != nil {
		return err
	}
	cmd := exec.Command(prog)
	cmd.Stdin = &req
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %v", prog, err)
	}
	return nil
}

// plotProgram finds resetpolicy-plot: beside this binary (where go install
// puts both), else on PATH.
func plotProgram() (string, error) {
	name := plotName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	beside := "(the binary's own path is unknown)"
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
		beside = filepath.Dir(exe)
	}
	if p, err := exec.LookPath(plotName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("drawing a plot runs %s, which is neither beside this resetpolicy, in %s, nor on PATH: install it with go install github.com/resetpolicy/resetpolicy/cmd/%s@latest (in a checkout: go install ./cmd/...)", plotName, beside, plotName)
}

// limitedBuffer keeps the first maxPlotErr bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxPlotErr - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
