package rules_test

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU is the CPU time of the whole process, garbage collection on
// other threads included. On a shared machine it leaves out the time spent
// waiting for a core, which wall time does not.
func processCPU() time.Duration {
	const clockProcessCPUTimeID = 2
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
