package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkServeInitialize measures how soon a real `serve --stdio`
// process answers initialize with the default policy: from the start of
// the spawn to the response line, beside spawning and reaping /bin/true,
// the floor any process pays. Each op is one process; the medians are the
// figures to read.
//
//	go test -run '^$' -bench ServeInitialize -benchtime 20x -count 5 ./cmd/resetpolicy
func BenchmarkServeInitialize(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir())
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"projectDir":"","trusted":false}}` + "\n"
	serve := func() time.Duration {
		t0 := time.Now()
		cmd := exec.Command(bin, "serve", "--stdio")
		cmd.Env = env
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(stdin, init)
		resp, err := bufio.NewReader(stdout).ReadString('\n')
		d := time.Since(t0)
		if err != nil || !strings.Contains(resp, `"result"`) {
			b.Fatalf("initialize: %v %s", err, resp)
		}
		stdin.Close()
		cmd.Wait()
		return d
	}
	spawnTrue := func() time.Duration {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	serve() // the binary into the page cache
	var st, tt []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ { // interleaved, so both see the same load
		st = append(st, serve())
		tt = append(tt, spawnTrue())
	}
	b.StopTimer()
	median := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1e3
	}
	b.ReportMetric(median(st), "ms-initialize")
	b.ReportMetric(median(tt), "ms-/bin/true")
}
