package nodesuite

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TypeCheck runs the package's TypeScript compiler (node_modules) over
// its tsconfig.json and fails t with the compiler's report. The check is
// incremental: tsc keeps what it learnt of the program in a file below
// the user's cache directory, one per package directory, and on the next
// run checks again only what changed (it compares every file's content,
// the installed packages' too). Without a cache directory it checks
// everything.
func TypeCheck(t *testing.T, node, dir string) {
	t.Helper()
	args := []string{filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", "."}
	if info := buildInfo(dir); info != "" {
		args = append(args, "--incremental", "--tsBuildInfoFile", info)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// buildInfo is where tsc keeps its incremental state for dir, or "".
func buildInfo(dir string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	d := filepath.Join(cache, "resetpolicy", "tsc")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return ""
	}
	return filepath.Join(d, hex.EncodeToString(sum[:8])+".tsbuildinfo")
}
