package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// maxSiblings bounds how many names of a folder Sibling reads.
const maxSiblings = 1000

// Sibling is the name of a file beside path, with path's extension, that
// a missing path may have been meant as (a did-you-mean, as close as the
// language's own suggestions are), or "". It reads at most maxSiblings
// names of the folder.
func Sibling(path string) string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxSiblings)
	ext := filepath.Ext(base)
	names = slices.DeleteFunc(names, func(n string) bool { return n == base || !strings.HasSuffix(n, ext) })
	slices.Sort(names)
	return lang.Closest(base, names)
}

// MissingPolicyFile is the problem of a test file whose policy file (at
// path) does not exist: said of the name as the test file writes it, with
// the file beside it that it may mean, not at a position in a file that is
// not there. It reports false when the file exists.
func MissingPolicyFile(f *testfile.File, path string) (rules.Diagnostics, bool) {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return rules.Diagnostics{}, false
	}
	detail := fmt.Sprintf("%s: no such file or directory (a policy file is named relative to the test file)", f.Policy)
	if s := Sibling(path); s != "" {
		detail += fmt.Sprintf("; did you mean %q?", filepath.ToSlash(filepath.Join(filepath.Dir(f.Policy), s)))
	}
	return rules.Diagnostics{Diagnostics: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No such policy file", Detail: detail}}}, true
}
