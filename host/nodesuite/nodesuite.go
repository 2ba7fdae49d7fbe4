package nodesuite

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Suite is a node:test suite of one host package.
type Suite struct {
	// Node is the Node binary; Dir the package directory the files are
	// relative to.
	Node, Dir string
	// Pattern names the test files below Dir (filepath.Glob), e.g. "test/*.test.ts".
	Pattern string
	// Alone are files that each get a shard of their own (a long file
	// that shares nothing with the others).
	Alone []string
	// Spread are files dealt before the others, so that no two of them
	// share a shard while there are shards left (the files that spend the
	// most: CLI runs, long waits).
	Spread []string
	// Shards is how many shards the other files are dealt into.
	Shards int
	// Flags go to node before the files, e.g. --test-timeout=120000.
	Flags []string
	// Env is the environment of every shard.
	Env []string
	// Limit bounds each shard; it only catches a hang.
	Limit time.Duration
}

// Plan deals files into shards: each of alone that is among files gets a
// shard of its own; the rest are dealt round-robin into n shards (fewer
// when there are fewer files), those of spread first, each group in name
// order.
func Plan(files, alone, spread []string, n int) [][]string {
	files = slices.Clone(files)
	slices.Sort(files)
	var plan [][]string
	var first, rest []string
	for _, f := range files {
		switch {
		case slices.Contains(alone, f):
			plan = append(plan, []string{f})
		case slices.Contains(spread, f):
			first = append(first, f)
		default:
			rest = append(rest, f)
		}
	}
	rest = append(first, rest...)
	n = max(1, min(n, len(rest)))
	dealt := make([][]string, n)
	for i, f := range rest {
		dealt[i%n] = append(dealt[i%n], f)
	}
	for _, d := range dealt {
		if len(d) > 0 {
			plan = append(plan, d)
		}
	}
	return plan
}

// Strays are the names of alone and spread that are not among files: a
// renamed file that the plan no longer places as it should.
func Strays(files, alone, spread []string) []string {
	var out []string
	for _, f := range append(slices.Clone(alone), spread...) {
		if !slices.Contains(files, f) {
			out = append(out, f)
		}
	}
	return out
}

// Files are the suite's test files, relative to Dir.
func (s Suite) Files() ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(s.Dir, s.Pattern))
	if err != nil {
		return nil, err
	}
	files := make([]string, len(matches))
	for i, m := range matches {
		if files[i], err = filepath.Rel(s.Dir, m); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// Result is what one shard did.
type Result struct {
	Files  []string
	Output string
	Err    error
	// Tests and Fail are node:test's summary counts ("ℹ tests N").
	Tests, Fail int
	// CPU is the user and system time of the shard's process tree (those
	// of its children that it waited for); Wall its duration.
	CPU, Wall time.Duration
}

var summary = regexp.MustCompile(`(?m)^ℹ (tests|fail) (\d+)$`)

// Run runs every shard at once and reports each failing shard with its
// output; it returns the results in plan order.
func Run(t *testing.T, s Suite) []Result {
	t.Helper()
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no test files match %s in %s", s.Pattern, s.Dir)
	}
	for _, f := range Strays(files, s.Alone, s.Spread) {
		t.Errorf("%s is named in the shard plan but is not a test file", f)
	}
	plan := Plan(files, s.Alone, s.Spread, s.Shards)
	results := make([]Result, len(plan))
	var wg sync.WaitGroup
	for i, shard := range plan {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.run(shard)
		}()
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		total += r.Tests
		name := strings.Join(r.Files, " ")
		if r.Err != nil {
			t.Errorf("shard %s: %v\n%s", name, r.Err, r.Output)
			continue
		}
		t.Logf("shard of %d files: %d tests, %.1f s CPU, %.1f s wall (%s)", len(r.Files), r.Tests, r.CPU.Seconds(), r.Wall.Seconds(), name)
	}
	t.Logf("%d tests in %d files, %d shards", total, len(files), len(plan))
	return results
}

func (s Suite) run(files []string) Result {
	r := Result{Files: files}
	ctx, cancel := context.WithTimeout(context.Background(), s.Limit)
	defer cancel()
	args := append([]string{"--test", "--experimental-test-isolation=none", "--test-reporter=spec"}, s.Flags...)
	cmd := exec.CommandContext(ctx, s.Node, append(args, files...)...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start)
	r.Output = out.String()
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	for _, m := range summary.FindAllStringSubmatch(r.Output, -1) {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "tests" {
			r.Tests = n
		} else {
			r.Fail = n
		}
	}
	switch {
	case ctx.Err() != nil:
		r.Err = fmt.Errorf("did not finish within %s", s.Limit)
	case err != nil:
		r.Err = fmt.Errorf("node --test: %v", err)
	case r.Tests == 0:
		// A shard that ran nothing has lost its files' checks.
		r.Err = fmt.Errorf("node --test ran no tests")
	}
	return r
}
