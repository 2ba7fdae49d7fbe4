package policies_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/policies"
)

// coldEnv names the one operation a child process of this test binary
// runs, cold, before printing its CPU time and exiting.
const coldEnv = "RESETPOLICY_COLD_OP"

func TestMain(m *testing.M) {
	if op := os.Getenv(coldEnv); op != "" {
		fmt.Println(coldOp(op).Nanoseconds())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// coldOp runs op once in this process and returns the CPU time it took
// (the whole process's, so garbage collection on other threads counts).
func coldOp(op string) time.Duration {
	src, _ := policies.Source(policies.Default)
	t0 := processCPU()
	switch op {
	case "parse":
		if _, diags := hclsyntax.ParseConfig(src.Bytes, src.Name, hcl.InitialPos); diags.HasErrors() {
			panic(diags.Error())
		}
	case "load":
		if _, diags := policies.Load(policies.Default, nil); diags.HasErrors() {
			panic(diags.Error())
		}
	default:
		panic("unknown op " + op)
	}
	return processCPU() - t0
}

func processCPU() time.Duration {
	const clockProcessCPUTimeID = 2
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}

func runCold(b *testing.B, op string) time.Duration {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), coldEnv+"="+op)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s: %v", op, err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		b.Fatalf("%s: %q", op, out)
	}
	return time.Duration(ns)
}

// BenchmarkColdLoadRatio is the first load of the default built-in in a
// fresh process against HCL's first parse of the same file in another
// fresh process (target: ratio ≤ 1.3). Each op starts one process of each,
// alternating; each measures only its own operation's CPU time, so
// process start-up and package initialisation, which both pay alike, are
// left out. The ratio is of the medians.
func BenchmarkColdLoadRatio(b *testing.B) {
	var parse, load []time.Duration
	for i := 0; i < b.N; i++ {
		parse = append(parse, runCold(b, "parse"))
		load = append(load, runCold(b, "load"))
	}
	mp, ml := median(parse), median(load)
	b.ReportMetric(float64(mp.Microseconds())/1e3, "parse-ms")
	b.ReportMetric(float64(ml.Microseconds())/1e3, "load-ms")
	b.ReportMetric(float64(ml)/float64(mp), "ratio")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
