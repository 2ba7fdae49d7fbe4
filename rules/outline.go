package rules

import "github.com/hashicorp/hcl/v2"

// Outline decodes a policy's declarations — params with the values in
// force, slots, derived values, messages, tools, commands, groups, rules,
// properties and, for a file that uses a built-in, the built-in's parts
// and the composition — without compiling a single expression, and keeps
// whatever decoded even when there are errors. It is for tools that must
// name the parts of a policy while it is being edited (the language
// server's completion, hover and go-to-definition): a typo in one guard
// keeps Load from returning a policy, not the outline of one.
//
// The result is never nil. Its diagnostics are not Load's: only Load says
// whether a policy is valid, and the outline must never be run.
func Outline(src Source, opts ...Option) *Policy {
	file, _, _ := options{}.parse(src, false)
	return OutlineParsed(src, file, opts...)
}

// OutlineParsed is Outline for a file the caller has parsed already with
// ParseHCL (an editor parses each version once, for its syntax tree too).
// file may be nil, or hold what HCL's native parser recovered around a
// syntax error: it recovers at block boundaries, so the blocks before and
// after an error are still there.
func OutlineParsed(src Source, file *hcl.File, opts ...Option) *Policy {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	sources := map[string][]byte{src.Name: src.Bytes}
	empty := &Policy{Sources: sources}
	if file == nil || file.Body == nil {
		return empty
	}
	if use, ok, _ := decodeUse(file.Body); ok && use != nil {
		if o.builtins == nil {
			return empty
		}
		base, found := o.builtins(use.Name)
		if !found {
			return empty
		}
		sources[base.Name] = base.Bytes
		baseFile, _, d := options{}.parse(base, false)
		if d.HasErrors() {
			return empty
		}
		p, _ := decodePolicy(baseFile.Body, base.Name, false)
		p.Sources, p.File = sources, src.Name
		comp := &Composition{Base: use.Name, BaseFile: base.Name, File: src.Name, UseRange: use.NameRange, InheritTests: true, Replaced: map[string]*Rule{}, replacements: map[string]hcl.Range{}}
		p.Composition = comp
		p.extend(use.rest, comp)
		p.applyOverrides(append(append([]Override(nil), use.Overrides...), o.overrides...))
		return p
	}
	p, _ := decodePolicy(file.Body, src.Name, false)
	p.Sources = sources
	p.applyOverrides(o.overrides)
	return p
}
