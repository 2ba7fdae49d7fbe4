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
func Find(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
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
