package sessionfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// IsSessionName reports whether a file name is a Pi session file: Pi's
// "<timestamp>_<id>.jsonl", or a file archived beside it as
// "<id>.jsonl.reset.<timestamp>".
func IsSessionName(name string) bool {
	if strings.HasSuffix(name, ".jsonl") {
		return true
	}
	i := strings.LastIndex(name, ".jsonl.reset.")
	return i > 0 && len(name) > i+len(".jsonl.reset.")
}

// Walk returns the session files named by paths: a file is taken as it
// is, whatever its name; a directory is walked recursively for session
// file names. The result is sorted within each directory and duplicates
// are dropped.
func Walk(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		if p == "-" { // standard input, read by ReadFile within the file bound
			add(p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Type().IsRegular() && IsSessionName(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		for _, f := range found {
			add(f)
		}
	}
	return out, nil
}
