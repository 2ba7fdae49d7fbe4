package rules

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
	"github.com/zclconf/go-cty/cty"
)

// Source is one policy file: its name (used in diagnostics) and bytes.
// A name ending in ".json" is read as HCL's JSON form.
type Source struct {
	Name  string
	Bytes []byte
	// Tree, when set, is Bytes' syntax tree encoded by package hcltree
	// (the built-ins carry theirs, made at build time): Load rebuilds the
	// tree from it instead of parsing. A tree of other bytes than Bytes
	// is not used, and the file is parsed as any other.
	Tree []byte
	// Static says that nothing writes Bytes and Tree while the policy
	// lives, as for a built-in's, which are the binary's own data: the
	// tree rebuilt from them then points into them (hcltree.DecodeStatic).
	Static bool
}

// Diagnostics are load problems with the sources they point into, so they
// can be printed with snippets.
type Diagnostics struct {
	hcl.Diagnostics
	Sources map[string][]byte
}

// Error prints the diagnostics as WriteDiagnostics does.
func (d Diagnostics) Error() string { return FormatDiagnostics(d.Sources, d.Diagnostics) }

// Override sets a param by name. Either Value or Raw is set: Raw is text
// from a flag or a setting, converted to the param's type.
type Override struct {
	Name   string
	Value  cty.Value
	Raw    string
	Origin string     // where it came from: a file name, "--set", "RESETPOLICY_…"
	Range  *hcl.Range // the value that gave it, when it came from a file
	// NameRange is the attribute name, for an override of an unknown param.
	NameRange *hcl.Range
	// Scoped overrides apply only to a policy that declares the param (a
	// user-level setting shared by projects on different policies): for
	// another policy they are a warning, not an error.
	Scoped bool
	// Yield makes an override give way to the policy file's own value: a
	// value its `use` block sets, or a param the file declares itself. A
	// user-level setting yields so that a project's policy file wins over
	// a personal config, param by param; the caller sees the loss in the
	// param's Origin.
	Yield bool
}

type options struct {
	overrides    []Override
	builtins     func(name string) (Source, bool)
	builtinNames func() []string
	noProperties bool
	compileOnUse bool
}

// Option configures Load.
type Option func(*options)

// WithSet overrides params from NAME=VALUE text (flags, settings), in
// name order.
func WithSet(values map[string]string, origin string) Option {
	return func(o *options) {
		names := make([]string, 0, len(values))
		for n := range values {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			o.overrides = append(o.overrides, Override{Name: n, Raw: values[n], Origin: origin})
		}
	}
}

// WithOverrides appends overrides; later ones win.
func WithOverrides(ov ...Override) Option {
	return func(o *options) { o.overrides = append(o.overrides, ov...) }
}

// WithoutProperties loads a policy to decide with, not to verify: its
// property and verify blocks are neither decoded nor checked, and
// Policy.PropertiesOmitted says so (verify and graph need a policy loaded
// in full; none of their callers loads one this way). The process Pi
// starts at every session loads so: a policy's properties are about a
// sixth of the default's start (docs/performance.md, Start-up), and a
// mistake in one is check's and verify's to report, not a reason to serve
// another policy.
func WithoutProperties() Option {
	return func(o *options) { o.noProperties = true }
}

// WithBuiltins lets a file `use` a built-in policy by name.
func WithBuiltins(find func(name string) (Source, bool)) Option {
	return func(o *options) { o.builtins = find }
}

// LoadFile reads and loads the policy file at path.
func LoadFile(path string, opts ...Option) (*Policy, Diagnostics) {
	b, diags := ReadHCLFile(path, "policy file")
	if diags.HasErrors() {
		return nil, Diagnostics{Diagnostics: diags}
	}
	return Load(Source{Name: path, Bytes: b}, opts...)
}

// Load decodes, validates and compiles a policy.
func Load(src Source, opts ...Option) (*Policy, Diagnostics) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	sources := map[string][]byte{src.Name: src.Bytes}
	// A built-in's own tree, at its defaults, to decide with: the policy
	// the build compiled (see CompileOnUse), whose group blocks are left
	// in the tree until an event first needs its rules.
	onUse := o.compileOnUse && o.noProperties && len(o.overrides) == 0
	file, built, diags := o.parse(src, onUse)
	if diags.HasErrors() {
		return nil, Diagnostics{quoteHints(src.Bytes, diags), sources}
	}
	use, isUse, d := decodeUse(file.Body)
	if isUse && built && onUse {
		// A file that uses a built-in adds its groups to the built-in's:
		// it is read whole (no built-in is such a file).
		if file, _, diags = o.parse(src, false); diags.HasErrors() {
			return nil, Diagnostics{quoteHints(src.Bytes, diags), sources}
		}
		use, isUse, d = decodeUse(file.Body)
	}
	if isUse || d.HasErrors() {
		if d.HasErrors() {
			return nil, Diagnostics{d, sources}
		}
		return loadUse(use, src, sources, o)
	}
	p, diags := decodePolicy(file.Body, src.Name, o.noProperties)
	if diags.HasErrors() {
		return nil, Diagnostics{p.alsoCompile(diags), sources}
	}
	p.Sources = sources
	diags = append(diags, p.applyOverrides(o.overrides)...)
	if diags.HasErrors() {
		return nil, Diagnostics{p.alsoCompile(diags), sources}
	}
	later := onUse && built
	diags = append(diags, p.compile(later)...)
	if diags.HasErrors() {
		return nil, Diagnostics{diags, sources}
	}
	if later {
		p.later.groups = src
	}
	return p, Diagnostics{diags, sources}
}

// parse reads src's syntax tree, as a load with options o reads it: a
// load WithoutProperties rebuilds a tree made at build time without its
// property and verify blocks, which a policy loaded to decide with does
// not read, and without its group blocks when noGroups is set (see
// CompileOnUse); a file parsed from its text keeps them all.
// built says whether the tree was the one made at build time.
func (o options) parse(src Source, noGroups bool) (file *hcl.File, built bool, diags hcl.Diagnostics) {
	if len(src.Tree) > 0 && !strings.HasSuffix(src.Name, ".json") && len(src.Bytes) <= MaxFileBytes {
		var omit []string
		switch {
		case o.noProperties && noGroups:
			omit = []string{"property", "verify", "group"}
		case o.noProperties:
			omit = []string{"property", "verify"}
		}
		// The tree was made by a parse that passed CheckHCL, and Decode
		// bounds its depth on its own.
		decode := hcltree.Decode
		if src.Static {
			decode = hcltree.DecodeStatic
		}
		if f, err := decode(src.Tree, src.Bytes, src.Name, omit...); err == nil {
			return f, true, nil
		}
	}
	file, diags = ParseHCL(src.Bytes, src.Name)
	return file, false, diags
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Range.Start.Byte != out[j].Range.Start.Byte {
			return out[i].Range.Start.Byte < out[j].Range.Start.Byte
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// IsPolicyFile reports whether a directory scan takes the file for a
// policy: .hcl and .hcl.json files that are not tests or scenarios.
func IsPolicyFile(path string) bool {
	base := filepath.Base(path)
	if strings.HasSuffix(base, ".test.hcl") || strings.HasSuffix(base, ".test.hcl.json") || strings.HasSuffix(base, ".scenario.hcl") {
		return false
	}
	return strings.HasSuffix(base, ".hcl") || strings.HasSuffix(base, ".hcl.json")
}

// alsoCompile adds to the errors of a policy that failed to decode the
// errors compiling what did decode finds, so that one run of check reports
// every problem of a file (printing caps them, MaxDiagnosticsShown). A
// param whose default failed takes its type's zero value; a param without
// a type stops it. The policy is not used after.
func (p *Policy) alsoCompile(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, x := range p.Params {
		if x.Type == cty.NilType {
			return diags
		}
		if x.Value == cty.NilVal {
			if x.Value = zeroValue(x.Type); x.Value == cty.NilVal {
				return diags
			}
		}
	}
	seen := map[string]bool{}
	key := func(d *hcl.Diagnostic) string {
		if d.Subject == nil {
			return d.Summary + "\x00" + d.Detail
		}
		return d.Summary + "\x00" + d.Subject.String()
	}
	for _, d := range diags {
		seen[key(d)] = true
	}
	extra := 0
	for _, d := range p.compile(false) {
		if d.Severity == hcl.DiagError && !seen[key(d)] {
			seen[key(d)] = true
			diags = append(diags, d)
			extra++
		}
	}
	if extra > 0 {
		// In file order, as a reader fixes them.
		sort.SliceStable(diags, func(i, j int) bool {
			a, b := diags[i].Subject, diags[j].Subject
			if a == nil || b == nil {
				return a != nil && b == nil
			}
			if a.Filename != b.Filename {
				return a.Filename < b.Filename
			}
			return a.Start.Byte < b.Start.Byte
		})
	}
	return diags
}

// zeroValue is a stand-in value of type t, or cty.NilVal.
func zeroValue(t cty.Type) cty.Value {
	switch {
	case t == cty.Number:
		return cty.Zero
	case t == cty.String:
		return cty.StringVal("")
	case t == cty.Bool:
		return cty.False
	case t.IsListType():
		return cty.ListValEmpty(t.ElementType())
	}
	return cty.NilVal
}
