package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A file that uses a built-in may extend it:
//
//	use "wipe_memory" {          # the built-in, with param overrides
//	  warning_runway = 20000
//	}
//	param "nudge_at" { … }       # added params, slots, derived values,
//	message "nudge" { … }        # messages, tools, commands
//	group "team" { rule … }      # an added group; a group the built-in has
//	                             # gets the rules after its own
//	override "tool_request_marks_window" {   # replaces the built-in's rule of
//	  on = "tool" …                          # that name, in its group and place
//	}
//	disable "budget_reminder_staged_once_per_window" {
//	  reason = "…"                           # the rule no longer exists
//	}
//	inherit_tests = false        # coverage ignores the built-in's own runs
//
// A replacement is a whole rule, never a patch of one: what the rule does is
// read in one place.

// Composition says how a policy that uses a built-in differs from it.
type Composition struct {
	// Base is the built-in's name and BaseFile its source name.
	Base, BaseFile string
	// File is the file that uses it.
	File string
	// UseRange is the use block's label.
	UseRange hcl.Range
	// InheritTests is true unless the file says inherit_tests = false: the
	// built-in's own test runs then count toward the coverage of the rules
	// inherited unchanged.
	InheritTests bool
	// Replaced maps a replaced rule's name to the built-in rule it replaces.
	Replaced map[string]*Rule
	// Disabled are the built-in's rules the file disables, in file order.
	Disabled []*Disabled

	// replacements are the override blocks, whole, by rule name.
	replacements map[string]hcl.Range
}

// Disabled is a built-in rule a file disables.
type Disabled struct {
	Rule   *Rule
	Range  hcl.Range // the disable block's label
	Reason string
}

// Origin says where a part of a composed policy comes from.
type Origin string

const (
	Inherited Origin = "inherited"
	Replaced  Origin = "replaced"
	Added     Origin = "added"
)

// RuleOrigin says whether a rule of the composed policy is the built-in's,
// a replacement of one, or added by the file.
func (c *Composition) RuleOrigin(r *Rule) Origin {
	if _, ok := c.Replaced[r.Name]; ok {
		return Replaced
	}
	return c.origin(r.DeclRange)
}

func (c *Composition) origin(rng hcl.Range) Origin {
	if rng.Filename == c.BaseFile {
		return Inherited
	}
	return Added
}

// DeclOrigin says whether a declaration (param, slot, derived value,
// message, tool, command, group) is the built-in's or added by the file.
func (c *Composition) DeclOrigin(rng hcl.Range) Origin { return c.origin(rng) }

// WithBuiltinNames lists the built-ins, so that an unknown name in a use
// block gets a did-you-mean.
func WithBuiltinNames(names func() []string) Option {
	return func(o *options) { o.builtinNames = names }
}

// useBlock is `use "NAME" { param = value … }`: a built-in with overrides.
type useBlock struct {
	Name      string
	NameRange hcl.Range
	Overrides []Override
	// rest is the file's body less the use block.
	rest hcl.Body
}

var useSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "use", LabelNames: []string{"policy"}}}}

var composeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "inherit_tests"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "override", LabelNames: []string{"rule"}},
		{Type: "disable", LabelNames: []string{"rule"}},
	},
}

var disableSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "reason"}}}

func decodeUse(body hcl.Body) (*useBlock, bool, hcl.Diagnostics) {
	content, rest, _ := body.PartialContent(useSchema)
	if len(content.Blocks) == 0 {
		return nil, false, nil
	}
	if len(content.Blocks) > 1 {
		return nil, true, hcl.Diagnostics{errorAt(ptr(content.Blocks[1].DefRange), "Duplicate use block", "a file uses one built-in policy")}
	}
	b := content.Blocks[0]
	use := &useBlock{Name: b.Labels[0], NameRange: b.LabelRanges[0], rest: rest}
	attrs, diags := bodyAttributes(b.Body)
	for _, a := range sortedAttrs(attrs) {
		v, d := a.Expr.Value(nil)
		if d.HasErrors() {
			diags = append(diags, errorAt(ptr(a.Expr.Range()), "Invalid param value", "a param value must be a literal (number, string, bool or list)"))
			continue
		}
		use.Overrides = append(use.Overrides, Override{Name: a.Name, Value: v, Origin: b.DefRange.Filename, Range: ptr(a.Expr.Range()), NameRange: ptr(a.NameRange)})
	}
	return use, true, diags
}

func loadUse(use *useBlock, src Source, sources map[string][]byte, o options) (*Policy, Diagnostics) {
	fail := func(d ...*hcl.Diagnostic) (*Policy, Diagnostics) { return nil, Diagnostics{d, sources} }
	if o.builtins == nil {
		return fail(errorAt(ptr(use.NameRange), "Unknown built-in policy", "no built-in policies are available here"))
	}
	base, ok := o.builtins(use.Name)
	if !ok {
		var names []string
		if o.builtinNames != nil {
			names = o.builtinNames()
		}
		list := ""
		if len(names) > 0 {
			list = " (built-ins: " + strings.Join(names, ", ") + ")"
		}
		return fail(errorAt(ptr(use.NameRange), "Unknown built-in policy", "there is no built-in policy %q%s%s", use.Name, suggestName(use.Name, names), list))
	}
	sources[base.Name] = base.Bytes
	baseFile, _, diags := o.parse(base, false)
	if diags.HasErrors() {
		return nil, Diagnostics{diags, sources}
	}
	p, diags := decodePolicy(baseFile.Body, base.Name, o.noProperties)
	if diags.HasErrors() {
		return nil, Diagnostics{diags, sources}
	}
	p.Sources, p.File = sources, src.Name
	comp := &Composition{Base: use.Name, BaseFile: base.Name, File: src.Name, UseRange: use.NameRange, InheritTests: true, Replaced: map[string]*Rule{}, replacements: map[string]hcl.Range{}}
	p.Composition = comp
	diags = append(diags, p.extend(use.rest, comp)...)
	if diags.HasErrors() {
		return nil, Diagnostics{p.alsoCompile(diags), sources}
	}
	ov := append(append([]Override(nil), use.Overrides...), o.overrides...)
	diags = append(diags, p.applyOverrides(ov)...)
	if diags.HasErrors() {
		return nil, Diagnostics{p.alsoCompile(diags), sources}
	}
	diags = append(diags, comp.nameReplacements(p.compile(false))...)
	if diags.HasErrors() {
		return nil, Diagnostics{diags, sources}
	}
	return p, Diagnostics{diags, sources}
}

// extend adds the file's own blocks to the built-in p, replaces and
// disables rules by name.
func (p *Policy) extend(body hcl.Body, comp *Composition) hcl.Diagnostics {
	content, rest, diags := body.PartialContent(composeSchema)
	if a, ok := content.Attributes["inherit_tests"]; ok {
		v, d := literalBool(a.Expr, "inherit_tests")
		diags = append(diags, d...)
		comp.InheritTests = v
	}
	policyContent, d := rest.Content(policySchema)
	diags = append(diags, d...)
	seen := newDecls()
	seen.hint = func(kind, name string, prev hcl.Range) string {
		if prev.Filename != comp.BaseFile {
			return ""
		}
		switch kind {
		case "rule":
			return fmt.Sprintf(", in built-in %s; to replace it, write override %q { … }", comp.Base, name)
		case "param":
			return fmt.Sprintf(", in built-in %s; to change its value, set it in the use block", comp.Base)
		}
		return fmt.Sprintf(", in built-in %s", comp.Base)
	}
	p.declare(seen)
	// A policy block, if any, renames and describes the composed policy.
	diags = append(diags, p.decodeBlocks(policyContent.Blocks, seen, true)...)
	diags = append(diags, derivedNameClashes(p)...)
	for _, b := range content.Blocks {
		switch b.Type {
		case "override":
			diags = append(diags, p.override(b, comp)...)
		case "disable":
			diags = append(diags, p.disable(b, comp)...)
		}
	}
	// Every rule in the order of the effective policy: groups in order,
	// the rules added to a built-in group at its end.
	p.Rules = p.Rules[:0]
	for _, g := range p.Groups {
		p.Rules = append(p.Rules, g.Rules...)
	}
	return diags
}

// declare records every name p already has, so the file's own
// declarations are checked against the built-in's.
func (p *Policy) declare(seen *decls) {
	var diags hcl.Diagnostics
	for _, x := range p.Params {
		seen.dup(&diags, "param", x.Name, x.DeclRange)
	}
	for _, x := range p.Slots {
		seen.dup(&diags, "slot", x.Name, x.DeclRange)
	}
	for _, x := range p.Derived {
		seen.dup(&diags, "derived value", x.Name, x.DeclRange)
	}
	for _, x := range p.Messages {
		seen.dup(&diags, "message", x.Name, x.DeclRange)
	}
	for _, x := range p.Tools {
		seen.dup(&diags, "tool", x.Name, x.DeclRange)
	}
	for _, x := range p.Commands {
		seen.dup(&diags, "command", x.Name, x.DeclRange)
	}
	for _, x := range p.Groups {
		seen.dup(&diags, "group", x.Name, x.DeclRange)
	}
	for _, x := range p.Rules {
		seen.dup(&diags, "rule", x.Name, x.NameRange)
	}
}

// baseRule finds the built-in's rule a block names, or reports it missing
// with the closest name.
func (p *Policy) baseRule(b *hcl.Block, comp *Composition, what string) (*Rule, hcl.Diagnostics) {
	name := b.Labels[0]
	var names []string
	for _, r := range p.Rules {
		if r.Name == name {
			if comp.RuleOrigin(r) != Inherited {
				return nil, hcl.Diagnostics{errorAt(ptr(b.LabelRanges[0]), "Rule already changed", "rule %q of built-in %s is already replaced or added in this file; %s takes each built-in rule once", name, comp.Base, what)}
			}
			return r, nil
		}
		if comp.RuleOrigin(r) == Inherited {
			names = append(names, r.Name)
		}
	}
	for _, d := range comp.Disabled {
		if d.Rule.Name == name {
			return nil, hcl.Diagnostics{errorAt(ptr(b.LabelRanges[0]), "Rule already disabled", "rule %q of built-in %s is disabled at %s", name, comp.Base, short(d.Range))}
		}
	}
	return nil, hcl.Diagnostics{errorAt(ptr(b.LabelRanges[0]), "Unknown built-in rule", "built-in %s has no rule %q to %s%s", comp.Base, name, what, suggestName(name, names))}
}

// override replaces a built-in rule by a whole new rule of the same name,
// in the same group and at the same place, so first-match order is kept.
func (p *Policy) override(b *hcl.Block, comp *Composition) hcl.Diagnostics {
	old, diags := p.baseRule(b, comp, "replace")
	if old == nil {
		return diags
	}
	r, diags := decodeRule(b, old.Group)
	if r == nil {
		return diags
	}
	replace := func(rs []*Rule) {
		for i, x := range rs {
			if x == old {
				rs[i] = r
			}
		}
	}
	replace(old.Group.Rules)
	replace(p.Rules)
	comp.Replaced[r.Name] = old
	comp.replacements[r.Name] = blockRange(b)
	return diags
}

func (p *Policy) disable(b *hcl.Block, comp *Composition) hcl.Diagnostics {
	old, diags := p.baseRule(b, comp, "disable")
	if old == nil {
		return diags
	}
	content, d := bodyContent(b.Body, disableSchema)
	diags = append(diags, d...)
	dis := &Disabled{Rule: old, Range: b.LabelRanges[0]}
	if a, ok := content.Attributes["reason"]; ok {
		dis.Reason, d = literalString(a.Expr, "reason")
		diags = append(diags, d...)
	}
	drop := func(rs []*Rule) []*Rule {
		out := rs[:0]
		for _, x := range rs {
			if x != old {
				out = append(out, x)
			}
		}
		return out
	}
	old.Group.Rules = drop(old.Group.Rules)
	p.Rules = drop(p.Rules)
	comp.Disabled = append(comp.Disabled, dis)
	return diags
}

// nameReplacements adds to a diagnostic inside a replacement rule the
// built-in rule it replaces, so the author sees what the rule stands for.
func (c *Composition) nameReplacements(diags hcl.Diagnostics) hcl.Diagnostics {
	if len(c.Replaced) == 0 {
		return diags
	}
	names := make([]string, 0, len(c.Replaced))
	for n := range c.Replaced {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Filename != c.File {
			continue
		}
		for _, n := range names {
			old := c.Replaced[n]
			if r := c.replacementRange(n); r != nil && r.Filename == d.Subject.Filename && r.Start.Byte <= d.Subject.Start.Byte && d.Subject.End.Byte <= r.End.Byte {
				d.Detail += fmt.Sprintf("\n(in the replacement of built-in %s's rule %q, %s)", c.Base, n, short(old.NameRange))
			}
		}
	}
	return diags
}

// replacementRange is the whole override block of a replaced rule.
func (c *Composition) replacementRange(name string) *hcl.Range {
	if r, ok := c.replacements[name]; ok {
		return &r
	}
	return nil
}

// blockRange is a block from its type to its closing brace (native
// syntax), or its header (JSON).
func blockRange(b *hcl.Block) hcl.Range {
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		return hcl.RangeBetween(b.DefRange, body.SrcRange)
	}
	return b.DefRange
}
