package opencode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/nodesuite"
)

// minNode is the oldest Node that runs the suite's TypeScript as is.
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
		msg := why + " (host/opencode/ci-install.sh installs Node 22 and the packages, opencode among them)"
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
	for _, p := range []string{"opencode-linux-x64/bin/opencode", "@opencode-ai/sdk/package.json", "@opencode-ai/plugin/package.json", "typescript/bin/tsc"} {
		if _, err := os.Stat(filepath.Join(wd, "node_modules", filepath.FromSlash(p))); err != nil {
			return "", "host/opencode/node_modules is not installed (npm ci in host/opencode): " + p + " is missing"
		}
	}
	return node, ""
}

// TestOpencodeEndToEnd runs the node:test suite in test/ against real
// opencode (`opencode serve`, opencode 1.18.33's linux-x64 binary package
// pinned) and a scripted model server, with the engine built from this
// checkout — and, in test/install.test.ts, the one the packed plugin
// builds from its own engine-src. Two shards run side by side: the
// install (it packs the plugin, installs it with `opencode plugin` into
// another opencode and builds its engine from the tarball's sources)
// alone, and the other files, which share one opencode server. More
// shards would cost a server each and gain nothing on a busy machine,
// where the suite is bound by CPU. The shards share opencode's prepared
// configuration directory (OC_CONFIG_TEMPLATE): whichever server starts
// first prepares it.
func TestOpencodeEndToEnd(t *testing.T) {
	ci := os.Getenv("CI") == "true"
	if testing.Short() && !ci {
		t.Skip("the opencode end-to-end suite does not run with -short")
	}
	t.Parallel()
	node, wd := prerequisites(t)
	repo := filepath.Clean(filepath.Join(wd, "..", ".."))

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(gobin, "build", "-o", bin, "./cmd/resetpolicy")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	results := nodesuite.Run(t, nodesuite.Suite{
		Node:    node,
		Dir:     wd,
		Pattern: filepath.Join("test", "*.test.ts"),
		Alone:   []string{filepath.Join("test", "install.test.ts")},
		Shards:  1,
		Flags:   []string{"--test-timeout=180000"},
		Env: append(os.Environ(),
			"RESETPOLICY_BIN="+bin,
			"OC_CONFIG_TEMPLATE="+filepath.Join(tmp, "opencode-config"),
			"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"NO_COLOR=1", "FORCE_COLOR=0",
		),
		// A bound that only catches a hang: a shard takes about a minute
		// on an idle 2-core machine.
		Limit: 8 * time.Minute,
	})
	for _, r := range results {
		for _, line := range strings.Split(r.Output, "\n") {
			if strings.HasPrefix(line, "opencode server CPU") {
				t.Log(line)
			}
		}
	}
}

// TestTypes type-checks the plugin and the tests with the strict tsconfig.
func TestTypes(t *testing.T) {
	t.Parallel()
	node, wd := prerequisites(t)
	nodesuite.TypeCheck(t, node, wd)
}

// The engine client and its installer are one module for both hosts:
// host/opencode/src carries a copy of host/pi/src's, byte for byte, so
// that each package installs on its own. A change to one is made to both.
func TestSharedEngineClient(t *testing.T) {
	for _, f := range []string{"engine.ts", "install.ts"} {
		pi, err := os.ReadFile(filepath.Join("..", "pi", "src", f))
		if err != nil {
			t.Fatal(err)
		}
		oc, err := os.ReadFile(filepath.Join("src", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pi, oc) {
			t.Errorf("src/%s differs from host/pi/src/%s: copy the changed one over the other", f, f)
		}
	}
}

// Without the packages the reason names what is missing.
func TestMissing(t *testing.T) {
	_, why := missing(t.TempDir())
	if why == "" {
		t.Fatal("an empty directory has everything")
	}
	if !strings.Contains(why, "no Node") && !strings.Contains(why, "opencode-linux-x64/bin/opencode") {
		t.Errorf("the reason names neither Node nor opencode: %s", why)
	}
}
