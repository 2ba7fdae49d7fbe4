package policies

import (
	"embed"
	"io/fs"
	"sort"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules"
)

//go:embed *.hcl *.hcl.tree
var files embed.FS

// The built-ins themselves, embedded as byte slices too: embed.FS's
// ReadFile copies a file into a new slice at every call, and for the
// default's 86 KB of text and tree that copy was the largest single cost
// of the process Pi starts at every session (docs/performance.md,
// Start-up). These point into the binary's data; TestEmbeddedBytesAreTheFiles
// checks them against files. Nothing may write to them.
var (
	//go:embed wipe_memory.hcl
	wipeMemoryHCL []byte
	//go:embed wipe_memory.hcl.tree
	wipeMemoryTree []byte
	//go:embed new_context.hcl
	newContextHCL []byte
	//go:embed new_context.hcl.tree
	newContextTree []byte
	//go:embed autocompacter.hcl
	autocompacterHCL []byte
	//go:embed autocompacter.hcl.tree
	autocompacterTree []byte
)

// builtin is a built-in's text and syntax tree.
type builtin struct{ hcl, tree []byte }

var builtins = map[string]builtin{
	"wipe_memory":   {wipeMemoryHCL, wipeMemoryTree},
	"new_context":   {newContextHCL, newContextTree},
	"autocompacter": {autocompacterHCL, autocompacterTree},
}

// Default is the policy in force when nothing else is configured.
const Default = "wipe_memory"

// Names lists the built-in policies, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if rules.IsPolicyFile(e.Name()) {
			out = append(out, strings.TrimSuffix(e.Name(), ".hcl"))
		}
	}
	sort.Strings(out)
	return out
}

// Source returns a built-in policy's file by name.
func Source(name string) (rules.Source, bool) {
	if strings.ContainsAny(name, "/\\.") {
		return rules.Source{}, false
	}
	b, ok := builtins[name]
	if !ok {
		return rules.Source{}, false
	}
	// The syntax tree made at build time (TestTreesAreCurrent), so that
	// loading a built-in does not parse it; rules.Load parses a file
	// whose tree is missing or of other bytes.
	return rules.Source{Name: "policies/" + name + ".hcl", Bytes: b.hcl, Tree: b.tree, Static: true}, true
}

// TestSource returns a built-in policy's test file by name.
func TestSource(name string) (rules.Source, bool) {
	b, err := files.ReadFile(name + ".test.hcl")
	if err != nil {
		return rules.Source{}, false
	}
	return rules.Source{Name: "policies/" + name + ".test.hcl", Bytes: b}, true
}

// TestFiles lists the built-in test files' names.
func TestFiles() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".test.hcl") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Load loads a built-in policy with param overrides given as text.
func Load(name string, set map[string]string, opts ...rules.Option) (*rules.Policy, rules.Diagnostics) {
	src, ok := Source(name)
	if !ok {
		return nil, unknown(name)
	}
	opts = append([]rules.Option{rules.WithBuiltins(Source), rules.WithBuiltinNames(Names), rules.WithSet(set, "--set")}, opts...)
	return rules.Load(src, opts...)
}
