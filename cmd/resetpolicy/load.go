package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// isBuiltinName reports whether arg names a built-in rather than a file.
func isBuiltinName(arg string) bool {
	return !strings.ContainsAny(arg, `/\.`)
}

// loadPolicy loads a built-in by name or a policy file by path, with
// --set overrides.
func loadPolicy(arg string, set map[string]string) (*rules.Policy, rules.Diagnostics) {
	if isBuiltinName(arg) {
		if _, ok := policies.Source(arg); !ok {
			if _, err := os.Stat(arg); err != nil {
				return policies.Load(arg, set)
			}
		} else {
			return policies.Load(arg, set)
		}
	}
	return rules.LoadFile(arg, append(builtinOptions(), rules.WithSet(set, "--set"))...)
}

// parseSet reads repeated PARAM=VALUE flags.
func parseSet(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		name, value, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usage("--set %q: want PARAM=VALUE", p)
		}
		out[strings.TrimSpace(name)] = value
	}
	return out, nil
}

// policyFiles expands directories into the policy files below them.
func policyFiles(args []string, match func(string) bool) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usage("%s: no such file or directory", a)
		}
		if err != nil {
			return nil, failure("%v", err)
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// Like the go tool: dot and underscore directories (deliberately
			// broken fixtures) and node_modules are not walked; .pi is.
			if d.IsDir() && path != a && testfile.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			if !d.IsDir() && match(path) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, failure("%v", err)
		}
	}
	return out, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
