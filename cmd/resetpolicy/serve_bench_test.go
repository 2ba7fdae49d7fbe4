package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkServeDecideStdio measures decide round trips over the stdio
// protocol against a running `resetpolicy serve --stdio` process: one
// request line written to its stdin, one response line read from its
// stdout. Process start and initialize are not timed. It reports the
// median and 99th percentile round trip and the server's peak RSS
// (VmHWM) after serving.
//
//	go test -run '^$' -bench ServeDecideStdio -benchtime 20000x ./cmd/resetpolicy
func BenchmarkServeDecideStdio(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	// The facts the Pi extension sends with every event.
	facts := `"window_id":"w-3f2a9c1d","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false`
	events := []struct{ name, event string }{
		{"request", `{"event":"request",` + facts + `}`},
		{"turn_end", `{"event":"turn_end",` + facts + `,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":2}`},
		{"tool", `{"event":"tool",` + facts + `,"name":"wipe_memory","args":{}}`},
	}
	for _, ev := range events {
		b.Run(ev.name, func(b *testing.B) {
			cmd := exec.Command(bin, "serve", "--stdio")
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir())
			cmd.Stderr = os.Stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() {
				stdin.Close()
				cmd.Wait()
			}()
			r := bufio.NewReaderSize(stdout, 1<<16)
			roundTrip := func(line string) string {
				if _, err := io.WriteString(stdin, line); err != nil {
					b.Fatal(err)
				}
				resp, err := r.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				return resp
			}
			if resp := roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"projectDir":"","trusted":false}}` + "\n"); !strings.Contains(resp, `"result"`) {
				b.Fatalf("initialize: %s", resp)
			}
			// One session per event kind; each request line is the same
			// size as the extension's.
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"019b7c1e-0000-7000-8000-000000000001","event":%s}}`+"\n", ev.event)
			for i := 0; i < 2000; i++ { // warm up
				if resp := roundTrip(line); !strings.Contains(resp, `"rules"`) {
					b.Fatalf("decide: %s", resp)
				}
			}
			lat := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				roundTrip(line)
				lat[i] = time.Since(t0)
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "µs-median")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "µs-p99")
			if kb := peakRSSkB(cmd.Process.Pid); kb > 0 {
				b.ReportMetric(float64(kb)/1024, "MB-peak-RSS")
			}
		})
	}
}

// peakRSSkB reads a process's peak resident set size (VmHWM) in kB, or 0
// where /proc is not available.
func peakRSSkB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				return n
			}
		}
	}
	return 0
}
