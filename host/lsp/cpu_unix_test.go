//go:build unix

package lsp

import (
	"syscall"
	"time"
)

// processCPU is the CPU time of the whole process (server and test client
// together, so an upper bound of the server's). On a shared machine it
// leaves out the time spent waiting for a core, which wall time does not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
