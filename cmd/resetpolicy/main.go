package main

import (
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		serveProcs(os.Getenv("GOMAXPROCS"))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
