package main

import (
	"os"

	"github.com/resetpolicy/resetpolicy/host/rpc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// The default policy's load starts before anything else, so that
		// on a second processor it runs while the flags and settings are
		// read (docs/performance.md, Start-up).
		servePreload = rpc.StartPreload()
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
