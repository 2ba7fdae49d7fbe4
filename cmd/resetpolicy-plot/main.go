// Command resetpolicy-plot draws the plots of resetpolicy replay --plot and
// resetpolicy simulate --plot. resetpolicy runs it, beside itself or on
// PATH, and sends it the sessions on its standard input; it is a program
// of its own so that the binary Pi starts at every session does not link
// the plotting library (gonum.org/v1/plot), whose package init parses its
// fonts at every start.
//
//	go install github.com/resetpolicy/resetpolicy/cmd/resetpolicy-plot@latest
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/resetpolicy/resetpolicy/host/chart"
	"github.com/resetpolicy/resetpolicy/host/replay"
)

const help = `resetpolicy-plot draws the plots of resetpolicy replay --plot and
resetpolicy simulate --plot: resetpolicy runs it and sends it the sessions
to draw, with the file to draw them to (.svg or .png), on its standard
input. It is not meant to be run by hand; install it beside resetpolicy:

  go install github.com/resetpolicy/resetpolicy/cmd/resetpolicy-plot@latest
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, help)
			return 0
		}
		fmt.Fprintf(stderr, "resetpolicy-plot takes no arguments (%q); it reads its request on standard input\n\n%s", args[0], help)
		return 2
	}
	path, sessions, err := replay.ReadPlotRequest(stdin)
	if err == nil {
		err = chart.Plot(path, sessions)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
