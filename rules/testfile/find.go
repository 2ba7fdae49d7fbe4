package testfile

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// Find returns the test files (names ending in Suffix) under dir, in
// lexical order. Like the go tool, it skips directories whose name starts
// with "." or "_", and node_modules: fixtures that must not run as tests
// (deliberately failing or malformed test files) live under such names.
// .pi is the exception: a project's policy and its tests live there.
func Find(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != dir && SkipDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), Suffix) {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// SkipDir reports whether a directory scan skips a directory of that name.
func SkipDir(name string) bool {
	if name == ".pi" {
		return false
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules"
}
