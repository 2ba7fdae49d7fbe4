package fileio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/fileio"
)

func TestSibling(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"team.hcl", "team.test.hcl", "other.hcl", "teem.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "teem.hcl"):      "team.hcl",
		filepath.Join(dir, "zzzzzzzzz.hcl"): "",
		filepath.Join(dir, "nope", "a.hcl"): "",
		filepath.Join(dir, "othr.hcl"):      "other.hcl",
	} {
		if got := fileio.Sibling(path); got != want {
			t.Errorf("Sibling(%s) = %q, want %q", path, got, want)
		}
	}
}
