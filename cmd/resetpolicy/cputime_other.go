//go:build !unix

package main

import "time"

var started = time.Now()

// cpuTime is, where the system tells no process CPU time, the time since
// the process started: an upper bound of it.
func cpuTime() time.Duration { return time.Since(started) }
