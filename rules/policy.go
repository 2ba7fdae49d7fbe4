package rules

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Policy is a loaded, validated and compiled policy. It is immutable and
// safe to share between sessions, but for the plans of a policy loaded
// CompileOnUse, which CompilePlan fills, once each, under a lock: read
// those through it.
type Policy struct {
	Name        string
	Description string
	DeclRange   hcl.Range
	// Hosts, when the policy block declares them, are the only hosts the
	// policy runs on faithfully (hosts.go); empty means every host.
	Hosts      []string
	HostsRange hcl.Range
	// File is the project file that took this policy with `use`, if any.
	File string
	// Composition, for a file that uses a built-in, says what it added,
	// replaced and disabled; nil for a policy written whole.
	Composition *Composition

	Params   []*Param
	Slots    []*Slot
	Derived  []*Derived
	Messages []*Message
	Tools    []*Tool
	Commands []*Command
	// Groups and Rules (every rule, in file order) of a policy loaded
	// CompileOnUse are read by its first CompilePlan (later.go).
	Groups []*Group
	Rules  []*Rule

	// Properties and Verify are what `verify` checks (property.go).
	Properties []*Property
	Verify     *VerifySettings
	// PropertiesOmitted is set when the policy was loaded
	// WithoutProperties: Properties and Verify are then empty whatever
	// the file says.
	PropertiesOmitted bool

	// Plans holds, per event of the host contract (in contract.Events
	// order), the rules that may fire on it.
	Plans []*Plan
	// Sources are the files the policy came from, for diagnostics.
	Sources map[string][]byte

	// later is set for a policy loaded CompileOnUse (later.go).
	later *laterPlans
}

// Plan is what one event kind runs: its fact layout and, per group, the
// candidate rules in file order.
type Plan struct {
	Event  *contract.Event
	Facts  []lang.Field // common facts first, then the event's own
	Groups []PlanGroup
}

// PlanGroup is a group's candidates for one event.
type PlanGroup struct {
	Group *Group
	Rules []*CompiledRule
}

// CompiledRule is a rule compiled for one event.
type CompiledRule struct {
	Rule    *Rule
	From    []Match
	When    *lang.Program // nil: always
	To      []Target
	Set     []Assign
	Effects []CompiledEffect
}

// Match requires an enum slot to hold one of Values. Mask has bit i set
// for the enum's i-th value, so the match is one AND.
type Match struct {
	Slot   *Slot
	Values []string
	Mask   uint64
}

// Target sets an enum slot to a literal value.
type Target struct {
	Slot  *Slot
	Value lang.Value // the string and its enum index
}

// Assign sets a slot to an expression's value.
type Assign struct {
	Slot *Slot
	Prog *lang.Program
}

// CompiledEffect is an effect with its arguments compiled.
type CompiledEffect struct {
	Name string
	Args []CompiledArg
	// Static is set when every argument is a constant, so the effect can
	// be emitted without evaluating anything.
	Static bool
}

// CompiledArg is one effect argument.
type CompiledArg struct {
	Name string
	Type contract.Type
	Prog *lang.Program
}

// PlanFor returns the plan of an event, or nil for an unknown name.
func (p *Policy) PlanFor(event string) *Plan {
	for _, pl := range p.Plans {
		if pl.Event.Name == event {
			return pl
		}
	}
	return nil
}

// Slot returns the slot of that name.
func (p *Policy) Slot(name string) (*Slot, bool) {
	for _, s := range p.Slots {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Param returns the param of that name.
func (p *Policy) Param(name string) (*Param, bool) {
	for _, x := range p.Params {
		if x.Name == name {
			return x, true
		}
	}
	return nil, false
}

// Message returns the message of that name.
func (p *Policy) Message(name string) (*Message, bool) {
	for _, m := range p.Messages {
		if m.Name == name {
			return m, true
		}
	}
	return nil, false
}

var policySchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "policy", LabelNames: []string{"name"}},
		{Type: "param", LabelNames: []string{"name"}},
		{Type: "slot", LabelNames: []string{"name"}},
		{Type: "derived", LabelNames: []string{"name"}},
		{Type: "message", LabelNames: []string{"name"}},
		{Type: "tool", LabelNames: []string{"name"}},
		{Type: "command", LabelNames: []string{"name"}},
		{Type: "group", LabelNames: []string{"name"}},
		{Type: "property", LabelNames: []string{"sentence"}},
		{Type: "verify"},
	},
}

var policyBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "hosts"}},
}

// decodePolicy decodes every block of a policy file, checking names and
// structure; expressions are compiled later, once params are final. With
// omit, property and verify blocks are skipped (WithoutProperties).
func decodePolicy(body hcl.Body, filename string, omit bool) (*Policy, hcl.Diagnostics) {
	content, diags := bodyContent(body, policySchema)
	p := &Policy{PropertiesOmitted: omit}
	diags = append(diags, p.decodeBlocks(content.Blocks, newDecls(), false)...)
	if p.DeclRange == (hcl.Range{}) && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Missing policy block",
			Detail:  `a policy file declares policy "NAME" { … }, or takes a built-in with use "NAME" { … }`,
			Subject: &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
		})
	}
	diags = append(diags, derivedNameClashes(p)...)
	return p, diags
}

// decls remembers where each name was declared, per kind, to report
// duplicates. hint, when set, adds to the message about a duplicate.
type decls struct {
	seen map[string]map[string]hcl.Range
	hint func(kind, name string, prev hcl.Range) string
}

func newDecls() *decls { return &decls{seen: map[string]map[string]hcl.Range{}} }

// dup records a declaration and reports whether the name was taken.
func (s *decls) dup(diags *hcl.Diagnostics, kind, name string, rng hcl.Range) bool {
	if s.seen[kind] == nil {
		s.seen[kind] = map[string]hcl.Range{}
	}
	if prev, ok := s.seen[kind][name]; ok {
		hint := ""
		if s.hint != nil {
			hint = s.hint(kind, name, prev)
		}
		*diags = append(*diags, errorAt(ptr(rng), "Duplicate "+kind, "%s %q is already declared at %s%s", kind, name, short(prev), hint))
		return true
	}
	s.seen[kind][name] = rng
	return false
}

// decodeBlocks decodes policy blocks into p, after what p already holds.
// With extend, a group block whose name p already has adds its rules to
// that group instead of declaring a second one (a file that uses a
// built-in adds rules to the built-in's groups).
func (p *Policy) decodeBlocks(blocks hcl.Blocks, seen *decls, extend bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	dup := func(kind, name string, rng hcl.Range) bool { return seen.dup(&diags, kind, name, rng) }
	var policies []*hcl.Block
	for _, b := range blocks {
		var name string
		var rng hcl.Range
		if len(b.Labels) > 0 {
			name, rng = b.Labels[0], b.LabelRanges[0]
		}
		switch b.Type {
		case "policy":
			policies = append(policies, b)
			if len(policies) > 1 {
				diags = append(diags, errorAt(ptr(rng), "Duplicate policy", "policy %q is already declared at %s; a file declares one policy", name, short(policies[0].LabelRanges[0])))
				continue
			}
			p.Name, p.DeclRange = name, b.DefRange
			attrs, d := bodyContent(b.Body, policyBlockSchema)
			diags = append(diags, d...)
			if a, ok := attrs.Attributes["description"]; ok {
				s, d := literalString(a.Expr, "description")
				diags = append(diags, d...)
				p.Description = s
			}
			if a, ok := attrs.Attributes["hosts"]; ok {
				diags = append(diags, p.decodeHosts(a)...)
			}
		case "param":
			if dup("param", name, rng) {
				continue
			}
			x, d := decodeParam(b)
			diags = append(diags, d...)
			if x != nil {
				p.Params = append(p.Params, x)
			}
		case "slot":
			if dup("slot", name, rng) {
				continue
			}
			x, d := decodeSlot(b, len(p.Slots))
			diags = append(diags, d...)
			if x != nil {
				p.Slots = append(p.Slots, x)
			}
		case "derived":
			if dup("derived value", name, rng) {
				continue
			}
			x, d := decodeDerived(b)
			diags = append(diags, d...)
			if x != nil {
				p.Derived = append(p.Derived, x)
			}
		case "message":
			if dup("message", name, rng) {
				continue
			}
			x, d := decodeMessage(b)
			diags = append(diags, d...)
			if x != nil {
				p.Messages = append(p.Messages, x)
			}
		case "tool":
			if dup("tool", name, rng) {
				continue
			}
			x, d := decodeTool(b)
			diags = append(diags, d...)
			if x != nil {
				p.Tools = append(p.Tools, x)
			}
		case "command":
			if dup("command", name, rng) {
				continue
			}
			x, d := decodeCommand(b)
			diags = append(diags, d...)
			if x != nil {
				p.Commands = append(p.Commands, x)
			}
		case "group":
			var existing *Group
			if extend {
				for _, g := range p.Groups {
					if g.Name == name {
						existing = g
					}
				}
			}
			if existing == nil && dup("group", name, rng) {
				continue
			}
			g, d := decodeGroup(b)
			diags = append(diags, d...)
			var kept []*Rule
			for _, r := range g.Rules {
				if dup("rule", r.Name, r.NameRange) {
					continue
				}
				kept = append(kept, r)
				p.Rules = append(p.Rules, r)
			}
			if existing != nil {
				for _, r := range kept {
					r.Group = existing
				}
				existing.Rules = append(existing.Rules, kept...)
				continue
			}
			p.Groups = append(p.Groups, g)
		case "property", "verify":
			if !p.PropertiesOmitted {
				diags = append(diags, decodeVerifyBlock(p, b, dup)...)
			}
		}
	}
	return diags
}

func short(r hcl.Range) string {
	return r.Filename + ":" + itoa(r.Start.Line) + ":" + itoa(r.Start.Column)
}

func itoa(n int) string { return lang.FormatNum(float64(n)) }
