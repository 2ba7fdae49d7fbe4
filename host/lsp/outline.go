package lsp

import (
	"bytes"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
)

// formatting is `resetpolicy fmt`'s result for the document: HCL's
// canonical format, or no edit when the document does not parse (fmt
// leaves such a file unchanged) or is HCL's JSON form (fmt leaves those
// alone).
func (s *Server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.doc(p.TextDocument.URI)
	if err != nil || d.text == nil || !strings.HasSuffix(d.name, ".hcl") {
		return nil, err
	}
	src := d.src()
	if d.syntax().broken {
		return []protocol.TextEdit{}, nil
	}
	out := hclfmt.Format(src)
	if bytes.Equal(out, src) {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: d.text.whole(), NewText: string(out)}}, nil
}

// documentSymbol is the outline, read off the syntax tree so that a
// document with an error still has one: rules in their groups, slots,
// params, derived values, messages, tools, commands, properties; a test
// file's runs and their events; a scenario's steps.
func (s *Server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.doc(p.TextDocument.URI)
	if err != nil || d.text == nil {
		return nil, err
	}
	body := d.syntax().body
	out := []protocol.DocumentSymbol{}
	if body == nil {
		return out, nil
	}
	for _, b := range body.Blocks {
		out = append(out, symbolOf(d.text, b, d.kind == scenarioKind))
	}
	return out, nil
}

func symbolOf(t *text, b *hclsyntax.Block, step bool) protocol.DocumentSymbol {
	name := b.Type
	sel := b.TypeRange
	if len(b.Labels) > 0 {
		name = b.Type + " " + b.Labels[0]
		sel = b.LabelRanges[0]
	}
	kind, ok := tab().symbolKinds[b.Type]
	if !ok || step && b.Type != "scenario" {
		kind = protocol.SymbolKindEvent
	}
	sym := protocol.DocumentSymbol{Name: name, Kind: kind, Range: t.rng(b.Range()), SelectionRange: t.rng(sel)}
	if want := tab().children[b.Type]; want != nil {
		for _, c := range b.Body.Blocks {
			if want[c.Type] {
				sym.Children = append(sym.Children, symbolOf(t, c, false))
			}
		}
	}
	return sym
}
