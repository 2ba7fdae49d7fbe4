package lsp

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// index is the document's name index, built once per change.
func (d *document) index() *index {
	syn := d.syntax()
	if syn.ix == nil {
		names := map[what]map[string]bool{wDerived: {}, wTool: {}, wCommand: {}}
		if p := syn.outline; p != nil && d.kind == policyKind {
			for _, x := range p.Derived {
				names[wDerived][x.Name] = true
			}
			for _, x := range p.Tools {
				names[wTool][x.Name] = true
			}
			for _, x := range p.Commands {
				names[wCommand][x.Name] = true
			}
		}
		syn.ix = buildIndex(syn.body, d.src(), d.kind, names)
	}
	return syn.ix
}

// occAt is the name under the cursor, if any.
func (s *Server) occAt(uri string, pos protocol.Position) (*document, *occ, error) {
	d, err := s.doc(uri)
	if err != nil || d.text == nil {
		return d, nil, err
	}
	return d, d.index().at(d.text.offset(pos)), nil
}

func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, o, err := s.occAt(p.TextDocument.URI, p.Position)
	if err != nil || o == nil {
		return nil, err
	}
	doc := s.describe(d, o)
	if doc == "" {
		return nil, nil
	}
	r := protocol.Range{Start: d.text.position(o.start), End: d.text.position(o.end)}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}, Range: &r}, nil
}

// describe is the hover text of an occurrence.
func (s *Server) describe(d *document, o *occ) string {
	p := d.syntax().outline
	switch o.what {
	case wFact:
		if f, ok := lookupFact(o.events, o.name); ok {
			return factDoc(f, o.events)
		}
	case wEvent:
		if e, ok := contract.LookupEvent(o.name); ok {
			return eventDoc(e)
		}
	case wEffect:
		if e, ok := contract.LookupEffect(o.name); ok {
			return effectDoc(e)
		}
	case wEffectArg:
		if e, ok := contract.LookupEffect(o.owner); ok {
			if a, ok := e.Arg(o.name); ok {
				return argDoc(e, a)
			}
		}
	case wBuiltin:
		if base := d.syntax().base; base != nil {
			return "**built-in policy " + base.Name + "**\n\n" + base.Description
		}
	}
	if p == nil {
		return ""
	}
	switch o.what {
	case wSlot, wEnumValue:
		name := o.name
		if o.what == wEnumValue {
			name = o.owner
		}
		if x, ok := p.Slot(name); ok {
			return slotDoc(x)
		}
	case wParam:
		if x, ok := p.Param(o.name); ok {
			return paramDoc(x)
		}
	case wMessage:
		if x, ok := p.Message(o.name); ok {
			return messageDoc(x)
		}
	case wDerived:
		for _, x := range p.Derived {
			if x.Name == o.name {
				return derivedDoc(x, p.Sources[x.DeclRange.Filename])
			}
		}
	case wRule:
		if r, origin := findRule(p, o); r != nil {
			return ruleDoc(r, origin)
		}
	case wTool:
		for _, x := range p.Tools {
			if x.Name == o.name {
				return toolDoc(x)
			}
		}
	case wCommand:
		for _, x := range p.Commands {
			if x.Name == o.name {
				return commandDoc(x)
			}
		}
	}
	return ""
}

// findRule finds the rule an occurrence names: for an override or disable
// label, the built-in's rule it names; otherwise the policy's rule.
func findRule(p *rules.Policy, o *occ) (*rules.Rule, string) {
	if c := p.Composition; c != nil && o.owner == "base" {
		if r, ok := c.Replaced[o.name]; ok {
			return r, "built-in " + c.Base + ", replaced here"
		}
		for _, x := range c.Disabled {
			if x.Rule.Name == o.name {
				return x.Rule, "built-in " + c.Base + ", disabled here"
			}
		}
	}
	for _, r := range p.Rules {
		if r.Name == o.name {
			origin := ""
			if p.Composition != nil {
				origin = string(p.Composition.RuleOrigin(r))
			}
			return r, origin
		}
	}
	if c := p.Composition; c != nil {
		for _, x := range c.Disabled {
			if x.Rule.Name == o.name {
				return x.Rule, "built-in " + c.Base + ", disabled"
			}
		}
	}
	return nil, ""
}

// declRange is where the name an occurrence stands for is declared.
func declRange(d *document, o *occ) (hcl.Range, bool) {
	syn := d.syntax()
	p := syn.outline
	if o.what == wBuiltin && syn.base != nil {
		return hcl.Range{Filename: syn.base.DeclRange.Filename, Start: hcl.InitialPos, End: hcl.InitialPos}, true
	}
	if p == nil {
		return hcl.Range{}, false
	}
	switch o.what {
	case wSlot, wEnumValue:
		name := o.name
		if o.what == wEnumValue {
			name = o.owner
		}
		if x, ok := p.Slot(name); ok {
			return x.DeclRange, true
		}
	case wParam:
		if x, ok := p.Param(o.name); ok {
			return x.DeclRange, true
		}
	case wMessage:
		if x, ok := p.Message(o.name); ok {
			return x.DeclRange, true
		}
	case wDerived:
		for _, x := range p.Derived {
			if x.Name == o.name {
				return x.DeclRange, true
			}
		}
	case wRule:
		if r, _ := findRule(p, o); r != nil {
			return r.NameRange, true
		}
	case wGroup:
		for _, x := range p.Groups {
			if x.Name == o.name {
				return x.DeclRange, true
			}
		}
	case wTool:
		for _, x := range p.Tools {
			if x.Name == o.name {
				return x.DeclRange, true
			}
		}
	case wCommand:
		for _, x := range p.Commands {
			if x.Name == o.name {
				return x.DeclRange, true
			}
		}
	}
	return hcl.Range{}, false
}

func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, o, err := s.occAt(p.TextDocument.URI, p.Position)
	if err != nil || o == nil {
		return nil, err
	}
	r, ok := declRange(d, o)
	if !ok {
		return nil, nil
	}
	loc, ok := s.location(d, r, true)
	if !ok {
		return nil, nil
	}
	return []protocol.Location{loc}, nil
}

func (s *Server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, o, err := s.occAt(p.TextDocument.URI, p.Position)
	if err != nil || o == nil {
		return nil, err
	}
	// An enum value's references are that slot's value, not the slot.
	same := func(x *occ) bool {
		return x.what == o.what && x.name == o.name && (o.what != wEnumValue || x.owner == o.owner)
	}
	out := []protocol.Location{}
	inDoc := false
	for i := range d.index().occs {
		x := &d.index().occs[i]
		if !same(x) || x.decl && !p.Context.IncludeDeclaration {
			continue
		}
		inDoc = inDoc || x.decl
		out = append(out, protocol.Location{URI: d.uri, Range: protocol.Range{Start: d.text.position(x.start), End: d.text.position(x.end)}})
	}
	if p.Context.IncludeDeclaration && !inDoc {
		if r, ok := declRange(d, o); ok && r.Filename != d.name {
			if loc, ok := s.location(d, r, true); ok {
				out = append([]protocol.Location{loc}, out...)
			}
		}
	}
	return out, nil
}
