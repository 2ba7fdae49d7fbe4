package main

import (
	"bufio"
	"flag"
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

// BenchmarkServeInitialize measures how soon a real `serve --stdio`
// process answers initialize with the default policy: from the start of
// the spawn to the response line, interleaved with a minimal Go program
// that reads one line and answers (the floor a Go process pays; the
// target is 3x it), with `resetpolicy version` (spawn to its line of
// output: the binary's own floor, which loads no policy) and with
// /bin/true. Each op
// is one of each; the medians are the figures to read, with serve's peak
// RSS. ms-first-decide is serve's spawn to its answer to the decision Pi
// asks for next (session_start), which builds that event's rules on use.
//
//	go test -run '^$' -bench ServeInitialize -benchtime 20x -count 5 ./cmd/resetpolicy
//
// -serve-before=PATH adds another build of the binary (the code before a
// change) to the interleaving, reported with a -before suffix:
//
//	go test -run '^$' -bench ServeInitialize -benchtime 40x ./cmd/resetpolicy -serve-before=/tmp/old
func BenchmarkServeInitialize(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	// Built as the Pi extension builds it (host/pi/src/install.ts): without
	// cgo, a static binary.
	engineBuild := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy")
	engineBuild.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := engineBuild.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	minimal := filepath.Join(b.TempDir(), "minimal")
	src := b.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalGo), 0o644); err != nil {
		b.Fatal(err)
	}
	build := exec.Command(gobin, "build", "-o", minimal, "main.go")
	build.Dir = src
	build.Env = append(os.Environ(), "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build minimal: %v\n%s", err, out)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir())
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"projectDir":"","trusted":false}}` + "\n"
	rss := map[string][]float64{} // serve's own peak RSS, by path
	before := *serveBefore
	cpu := map[string][]time.Duration{}     // each process's own CPU time, by path
	decided := map[string][]time.Duration{} // spawn to the first decision's answer, by path
	answer := func(path string, args ...string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command(path, args...)
		cmd.Env = env
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(stdin, init)
		out := bufio.NewReader(stdout)
		resp, err := out.ReadString('\n')
		d := time.Since(t0)
		if err != nil || !strings.Contains(resp, `"result"`) {
			b.Fatalf("initialize: %v %s", err, resp)
		}
		// The peak of serve's own memory up to its answer, read while it
		// waits for the next line: rusage's ru_maxrss would not do, as
		// Linux carries into it the resident size of the process that
		// spawned it (this test binary, about as large).
		hwm := -1.0
		if path != minimal {
			hwm = peakRSS(cmd.Process.Pid)
			// Then what Pi's session start asks next: the first
			// decision, which builds the rules of its event on use.
			io.WriteString(stdin, firstDecide)
			resp, err := out.ReadString('\n')
			if err != nil || !strings.Contains(resp, `"result"`) {
				b.Fatalf("decide: %v %s", err, resp)
			}
			decided[path] = append(decided[path], time.Since(t0))
		}
		stdin.Close()
		cmd.Wait()
		cpu[path] = append(cpu[path], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if hwm >= 0 {
			rss[path] = append(rss[path], hwm)
		}
		return d
	}
	serve := func() time.Duration { return answer(bin, "serve", "--stdio") }
	spawnTrue := func() time.Duration {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// version is the binary started to its first line of output, loading
	// no policy: what every process of it pays before any work, timed as
	// the others are, to the answer (its exit is not counted).
	version := func() time.Duration {
		t0 := time.Now()
		cmd := exec.Command(bin, "version")
		cmd.Env = env
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		d := time.Since(t0)
		if err != nil || line == "" {
			b.Fatalf("version: %v %q", err, line)
		}
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		return d
	}
	serve() // the binary into the page cache
	if before != "" {
		answer(before, "serve", "--stdio")
	}
	var st, mt, tt, bt, vt []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ { // interleaved, so all see the same load
		st = append(st, serve())
		mt = append(mt, answer(minimal))
		vt = append(vt, version())
		tt = append(tt, spawnTrue())
		if before != "" {
			bt = append(bt, answer(before, "serve", "--stdio"))
		}
	}
	b.StopTimer()
	median := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1e3
	}
	ms, mm := median(st), median(mt)
	b.ReportMetric(ms, "ms-initialize")
	b.ReportMetric(mm, "ms-minimal-go")
	b.ReportMetric(ms/mm, "x-minimal-go")
	b.ReportMetric(median(decided[bin]), "ms-first-decide")
	mv := median(vt)
	b.ReportMetric(mv, "ms-version")
	b.ReportMetric(mv/mm, "x-minimal-go-version")
	b.ReportMetric(median(tt), "ms-/bin/true")
	// CPU time is what a loaded machine does not stretch: the process's
	// own work from exec to exit (Linux counts it in clock ticks, so
	// single figures are coarse; the median of many is not).
	cs, cm := median(cpu[bin]), median(cpu[minimal])
	b.ReportMetric(cs, "ms-cpu-initialize")
	b.ReportMetric(cm, "ms-cpu-minimal-go")
	peak := func(path, suffix string) {
		if r := rss[path]; len(r) > 0 {
			sort.Float64s(r)
			b.ReportMetric(r[len(r)/2], "MiB-peak-rss"+suffix)
			b.ReportMetric(r[len(r)-1], "MiB-peak-rss-max"+suffix)
		}
	}
	peak(bin, "")
	if before != "" {
		mb := median(bt)
		b.ReportMetric(mb, "ms-initialize-before")
		b.ReportMetric(mb/mm, "x-minimal-go-before")
		b.ReportMetric(median(decided[before]), "ms-first-decide-before")
		b.ReportMetric(median(cpu[before]), "ms-cpu-initialize-before")
		peak(before, "-before")
	}
}

var serveBefore = flag.String("serve-before", "", "ServeInitialize: another build of resetpolicy to interleave (the code before a change)")

// peakRSS is a running process's peak resident size in MiB (VmHWM), or -1
// where /proc does not tell it.
func peakRSS(pid int) float64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kib, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return kib / 1024
			}
		}
	}
	return -1
}

// minimalGo reads one request line and answers it: the least a Go process
// Pi spawns could do.
// firstDecide is the decision Pi's session start asks for after
// initialize.
const firstDecide = `{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"s1","event":{"event":"session_start","reason":"startup"}}}` + "\n"

const minimalGo = `package main

import (
	"bufio"
	"os"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	if _, err := r.ReadString('\n'); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n")
}
`
