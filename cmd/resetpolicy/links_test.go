package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBinaryLinksNoHclwrite keeps hclwrite and go-cmp out of the binary.
// hclwrite imports github.com/google/go-cmp/cmp, whose package init
// compiles two Unicode regular expressions in every process that links it:
// 2.9 M of the 16.8 M instructions `serve --stdio` ran before its first
// answer. fmt and the values written as HCL use rules/hclfmt, hclwrite's
// formatter and value writer copied; only tests may import hclwrite.
func TestBinaryLinksNoHclwrite(t *testing.T) {
	for _, pkg := range binaryDeps(t) {
		switch pkg {
		case "github.com/google/go-cmp/cmp", "github.com/hashicorp/hcl/v2/hclwrite":
			t.Errorf("the binary links %s", pkg)
		}
	}
}

// TestBinaryLinksNoPlot keeps gonum's plotting library out of the binary:
// its package init parses twelve Liberation fonts in every process that
// links it (0.93 M of the 11.4 M instructions serve ran to its first
// answer). host/chart draws the charts with host/render's face, parsed at
// the first PNG text.
func TestBinaryLinksNoPlot(t *testing.T) {
	for _, pkg := range binaryDeps(t) {
		if strings.HasPrefix(pkg, "gonum.org/") {
			t.Errorf("the binary links %s", pkg)
		}
	}
}

// binaryDeps lists the packages ./cmd/resetpolicy links.
func binaryDeps(t *testing.T) []string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	list := func(env ...string) ([]byte, error) {
		cmd := exec.Command(gobin, "list", "-deps", "./cmd/resetpolicy") // TestMain is at the module root
		cmd.Env = append(os.Environ(), env...)
		return cmd.Output()
	}
	// The modules are in the cache; only if one is not does go list need
	// the network, and a short run does without it.
	out, err := list("GOPROXY=off")
	if err != nil {
		if testing.Short() {
			t.Skipf("go list -deps needs the network (with GOPROXY=off: %v)", err)
		}
		if out, err = list(); err != nil {
			msg := err.Error()
			if ee, ok := err.(*exec.ExitError); ok {
				msg += "\n" + string(ee.Stderr)
			}
			t.Fatalf("go list -deps ./cmd/resetpolicy: %s", msg)
		}
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps ./cmd/resetpolicy listed %d packages; that is not the binary", len(deps))
	}
	return deps
}
