package testfile

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/resetpolicy/resetpolicy/rules"
)

// Suffix is the file name suffix of a policy test file.
const Suffix = ".test.hcl"

// File is one decoded test file.
type File struct {
	// Filename is the name the file was parsed under (a path on disk, or a
	// name of an embedded file).
	Filename string
	// Source is the file's text, kept for diagnostics with snippets.
	Source []byte

	// Policy is the `policy` attribute as written: a built-in name, or a
	// path relative to this file (see PolicyFile).
	Policy      string
	PolicyRange hcl.Range

	// Params are the file-wide param overrides, in source order.
	Params []Param

	// Runs are the file's run blocks, in source order.
	Runs []*Run
}

// Param is one param override.
type Param struct {
	Name string
	// Value is the override as written.
	Value cty.Value
	// Text is Value as the policy loader takes overrides: strings as they
	// are, numbers in decimal, bools as true/false, lists in HCL syntax.
	Text string
	// Range is the value's, NameRange the name's: an unknown param is
	// shown at its name.
	Range, NameRange hcl.Range
}

var fileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "policy", Required: true},
		{Name: "params"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "run", LabelNames: []string{"name"}},
	},
}

// Load reads and decodes the test file at path. The File is never nil: with
// errors it holds at least the name and the text read, for diagnostics.
func Load(path string) (*File, hcl.Diagnostics) {
	src, diags := rules.ReadHCLFile(path, "test file")
	if diags.HasErrors() {
		return &File{Filename: path}, diags
	}
	return Parse(src, path)
}

// Parse decodes a test file from its source. filename is used in
// diagnostics and to resolve a policy given as a path. The File is never
// nil; when the diagnostics have errors it must not be run.
func Parse(src []byte, filename string) (*File, hcl.Diagnostics) {
	f := &File{Filename: filename, Source: src}
	if diags := rules.CheckHCL(src, filename); diags.HasErrors() {
		return f, diags
	}
	hf, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return f, diags
	}
	content, d := hf.Body.Content(fileSchema)
	diags = append(diags, d...)

	if attr, ok := content.Attributes["policy"]; ok {
		s, d := stringAttr(attr)
		diags = append(diags, d...)
		f.Policy, f.PolicyRange = s, attr.Expr.Range()
		if !d.HasErrors() && strings.TrimSpace(s) == "" {
			diags = append(diags, errorAt(attr.Expr.Range(), "Empty policy",
				"The policy attribute names a built-in policy or a policy file relative to this test file."))
		}
	}
	if attr, ok := content.Attributes["params"]; ok {
		ps, d := decodeParams(attr)
		diags = append(diags, d...)
		f.Params = ps
	}

	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		run, d := decodeRunBlock(src, b)
		diags = append(diags, d...)
		if prev, dup := seen[run.Name]; dup {
			diags = append(diags, errorAt(b.LabelRanges[0], "Duplicate run",
				fmt.Sprintf("A run named %q is already declared at %s.", run.Name, shortPos(prev))))
			continue
		}
		seen[run.Name] = b.LabelRanges[0]
		f.Runs = append(f.Runs, run)
	}
	if len(content.Blocks) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "No runs",
			Detail:   "This test file has no run blocks, so it tests nothing.",
			Subject:  f.PolicyRange.Ptr(),
		})
	}
	return f, diags
}

// BaseName is the file's name without its directory.
func (f *File) BaseName() string {
	return path.Base(filepath.ToSlash(f.Filename))
}

// IsPolicyFile reports whether a `policy` value names a file rather than a
// built-in: it contains a path separator or ends in ".hcl" (or ".hcl.json").
func IsPolicyFile(ref string) bool {
	return strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".hcl") || strings.HasSuffix(ref, ".hcl.json")
}

// PolicyFile returns the path of the policy file this test file names,
// resolved against the test file's directory, or "" when the policy is a
// built-in name.
func (f *File) PolicyFile() string {
	if !IsPolicyFile(f.Policy) {
		return ""
	}
	if filepath.IsAbs(f.Policy) {
		return filepath.Clean(f.Policy)
	}
	return filepath.Join(filepath.Dir(f.Filename), filepath.FromSlash(f.Policy))
}

// Overrides returns the param overrides in force for run: the file's, then
// the run's, which win. Each keeps its source range, so the loader's
// diagnostics for a bad override point into the test file.
func (f *File) Overrides(run *Run) []rules.Override {
	var out []rules.Override
	add := func(ps []Param) {
		for _, p := range ps {
			out = append(out, rules.Override{Name: p.Name, Value: p.Value, Raw: p.Text, Origin: f.Filename, Range: p.Range.Ptr(), NameRange: p.NameRange.Ptr()})
		}
	}
	add(f.Params)
	if run != nil {
		add(run.Params)
	}
	return out
}

// OverridesKey is a stable text of the overrides in force for run, usable
// as a cache key for a loaded policy.
func (f *File) OverridesKey(run *Run) string {
	final := map[string]string{}
	for _, ov := range f.Overrides(run) {
		final[ov.Name] = ov.Raw
	}
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(final)) {
		fmt.Fprintf(&b, "%s=%q;", n, final[n])
	}
	return b.String()
}

func decodeParams(attr *hcl.Attribute) ([]Param, hcl.Diagnostics) {
	pairs, diags := objectPairs(attr.Expr, "params", "param overrides such as { warning_runway = 8192 }")
	var out []Param
	for _, kv := range pairs {
		v, d := kv.value.Value(nil)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		text, err := ParamText(v)
		if err != nil {
			diags = append(diags, errorAt(kv.value.Range(), "Invalid param value",
				fmt.Sprintf("Param %q: %s.", kv.name, err)))
			continue
		}
		out = append(out, Param{Name: kv.name, Value: v, Text: text, Range: kv.value.Range(), NameRange: kv.keyRange})
	}
	return out, diags
}
