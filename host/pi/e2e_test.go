package pi

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/nodesuite"
)

// minNode is the oldest Node that Pi 1.6 runs on.
var minNode = [3]int{22, 19, 0}

// prerequisites finds Node and the installed packages. When CI=true a
// missing one fails the test; otherwise it is skipped with the reason.
func prerequisites(t *testing.T) (node, wd string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	node, why := missing(wd)
	if why != "" {
		msg := why + " (host/pi/ci-install.sh installs Node 22 and the packages)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, wd
}

// missing finds Node and the installed packages for the package in wd,
// or says what is missing.
func missing(wd string) (node, why string) {
	node, reason := nodesuite.FindNode(filepath.Clean(filepath.Join(wd, "..", "..")), minNode)
	if node == "" {
		return "", fmt.Sprintf("no Node %d.%d or later: %s", minNode[0], minNode[1], reason)
	}
	for _, p := range []string{"@earendil-works/pi-coding-agent/package.json", "typescript/bin/tsc"} {
		if _, err := os.Stat(filepath.Join(wd, "node_modules", filepath.FromSlash(p))); err != nil {
			return "", "host/pi/node_modules is not installed (npm ci in host/pi)"
		}
	}
	return node, ""
}

// skippedLine is the one line a run without Node prints.
func skippedLine(why string) string {
	return "host/pi: the Pi end-to-end tests were SKIPPED: " + why +
		". To run them: bash host/pi/ci-install.sh (Node 22 and Pi's packages, into .node/ and host/pi/node_modules), then go test ./host/pi/; RESETPOLICY_NODE may name another Node 22.19+."
}

// TestMain says, in one line the user sees, that the end-to-end tests
// were skipped. go test keeps a passing package's output to itself (only
// "ok host/pi" shows), so the line goes to the terminal, /dev/tty, when
// there is one, and to stderr (seen with -v) otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if wd, err := os.Getwd(); err == nil && os.Getenv("CI") != "true" && !testing.Short() {
		if _, why := missing(wd); why != "" {
			var w io.Writer = os.Stderr
			if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
				defer tty.Close()
				w = tty
			}
			fmt.Fprintln(w, skippedLine(why))
		}
	}
	os.Exit(code)
}

// TestPiEndToEnd runs the node:test suite in test/ against Pi's real agent
// loop with the engine built from this checkout (once; every shard runs it).
// Four shards run side by side: the package install (it packs the
// package, installs it with Pi and builds the engine from the tarball's
// sources) alone, the other files dealt into three.
func TestPiEndToEnd(t *testing.T) {
	ci := os.Getenv("CI") == "true"
	if testing.Short() && !ci {
		t.Skip("the Pi end-to-end suite does not run with -short")
	}
	t.Parallel()
	node, wd := prerequisites(t)
	repo := filepath.Clean(filepath.Join(wd, "..", ".."))

	bin := filepath.Join(t.TempDir(), "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	nodesuite.Run(t, nodesuite.Suite{
		Node:    node,
		Dir:     wd,
		Pattern: filepath.Join("test", "*.test.ts"),
		Alone:   []string{filepath.Join("test", "install.test.ts")},
		// The files that run Pi's CLI (a Node process each) or wait on a
		// decision timeout or a build's bound.
		Spread: []string{
			filepath.Join("test", "autocompacter_cli.test.ts"),
			filepath.Join("test", "cli.test.ts"),
			filepath.Join("test", "exit_modes.test.ts"),
			filepath.Join("test", "failsafe_engine.test.ts"),
			filepath.Join("test", "first_build.test.ts"),
		},
		Shards: 3,
		Flags:  []string{"--test-timeout=120000"},
		Env: append(os.Environ(),
			"RESETPOLICY_BIN="+bin,
			"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"NO_COLOR=1", "FORCE_COLOR=0",
		),
		// A bound that only catches a hang: a shard takes well under a
		// minute on an idle 2-core machine.
		Limit: 8 * time.Minute,
	})
}

// TestTypes type-checks the extension and the tests with the strict
// tsconfig.
func TestTypes(t *testing.T) {
	t.Parallel()
	node, wd := prerequisites(t)
	nodesuite.TypeCheck(t, node, wd)
}

// Without Node the line names what is missing and how to get it.
func TestSkippedLine(t *testing.T) {
	_, why := missing(t.TempDir())
	if why == "" {
		t.Fatal("an empty directory has everything")
	}
	line := skippedLine(why)
	for _, want := range []string{"SKIPPED", "node_modules is not installed", "bash host/pi/ci-install.sh", "go test ./host/pi/"} {
		if !strings.Contains(line, want) && !(want == "node_modules is not installed" && strings.Contains(line, "no Node")) {
			t.Errorf("line lacks %q: %s", want, line)
		}
	}
}
