package lsp

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// maxItems bounds a completion list.
const maxItems = 500

func (s *Server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.doc(p.TextDocument.URI)
	if err != nil || d.text == nil {
		return nil, err
	}
	items := complete(d, d.text.offset(p.Position))
	if len(items) > maxItems {
		items = items[:maxItems]
	}
	return protocol.CompletionList{Items: items}, nil
}

type cursor struct {
	d      *document
	off    int
	src    []byte
	prefix string // the line up to the cursor
	path   []*hclsyntax.Block
	attr   *hclsyntax.Attribute // the attribute of the innermost block holding the cursor
	syn    *syntax
}

func complete(d *document, off int) []protocol.CompletionItem {
	c := &cursor{d: d, off: off, src: d.src(), syn: d.syntax()}
	lineStart := strings.LastIndexByte(string(c.src[:off]), '\n') + 1
	c.prefix = string(c.src[lineStart:off])
	c.path, c.attr = locate(c.syn.body, off)

	if m := tab().member.FindStringSubmatch(c.prefix); m != nil && d.kind == policyKind {
		return c.members(m[1])
	}
	if m := tab().label.FindStringSubmatch(c.prefix); m != nil {
		return c.labels(m[1])
	}
	if d.kind == scenarioKind {
		if len(c.path) == 0 && tab().attrPos.MatchString(c.prefix) {
			names := scenario.StepNames()
			sort.Strings(names)
			return keywords(append([]string{"scenario"}, names...))
		}
		return nil
	}
	if tab().tool.MatchString(c.prefix) {
		return c.toolNames()
	}
	if c.attr != nil && off > c.attr.EqualsRange.Start.Byte {
		return c.value()
	}
	if tab().attrPos.MatchString(c.prefix) {
		return c.attributeNames()
	}
	return nil
}

// locate is the chain of blocks holding off, outermost first, and the
// attribute of the innermost one that holds it.
func locate(body *hclsyntax.Body, off int) ([]*hclsyntax.Block, *hclsyntax.Attribute) {
	var path []*hclsyntax.Block
	for body != nil {
		var next *hclsyntax.Block
		for _, b := range body.Blocks {
			r := b.Range()
			// Just after a closing brace is outside; at the end of a block
			// the parser could not close, inside.
			if r.Start.Byte <= off && (off < r.End.Byte || off == r.End.Byte && !closed(b)) {
				next = b
			}
		}
		if next == nil {
			for _, a := range body.Attributes {
				if a.SrcRange.Start.Byte <= off && off <= a.SrcRange.End.Byte {
					return path, a
				}
			}
			return path, nil
		}
		path = append(path, next)
		body = next.Body
	}
	return path, nil
}

// closed reports whether a block ends with its closing brace, so that the
// offset just after it is outside.
func closed(b *hclsyntax.Block) bool {
	r := b.CloseBraceRange
	return r.End.Byte > r.Start.Byte && r.End.Byte == b.Range().End.Byte
}

func (c *cursor) inner() string { return parentType(c.path) }

func (c *cursor) outline() *rules.Policy {
	if c.syn.outline == nil {
		return &rules.Policy{}
	}
	return c.syn.outline
}

func item(label string, kind protocol.CompletionItemKind, detail, doc string) protocol.CompletionItem {
	it := protocol.CompletionItem{Label: label, Kind: &kind}
	if detail != "" {
		it.Detail = &detail
	}
	if doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
	}
	return it
}

func keywords(names []string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for _, n := range names {
		out = append(out, item(n, protocol.CompletionItemKindKeyword, "", ""))
	}
	return out
}

// members are the names after event., state., param. and message.
func (c *cursor) members(root string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	p := c.outline()
	switch root {
	case "event":
		events := ruleEvents(c.path)
		for _, f := range commonFacts(events) {
			out = append(out, item(f.Name, protocol.CompletionItemKindField, factDetail(f), factDoc(f, events)))
		}
	case "state":
		for _, x := range p.Slots {
			out = append(out, item(x.Name, protocol.CompletionItemKindVariable, slotDetail(x), slotDoc(x)))
		}
	case "param":
		for _, x := range p.Params {
			out = append(out, item(x.Name, protocol.CompletionItemKindConstant, paramDetail(x), paramDoc(x)))
		}
	case "message":
		for _, x := range p.Messages {
			out = append(out, item(x.Name, protocol.CompletionItemKindText, "message", messageDoc(x)))
		}
	}
	return out
}

// labels complete a block's label.
func (c *cursor) labels(blockType string) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	switch blockType {
	case "use":
		for _, n := range policies.Names() {
			desc := ""
			if p := loadBuiltin(n); p != nil {
				desc = p.Description
			}
			out = append(out, item(n, protocol.CompletionItemKindModule, "built-in policy", desc))
		}
	case "effect":
		out = c.effectNames()
	case "override", "disable":
		if base := c.syn.base; base != nil {
			for _, r := range base.Rules {
				out = append(out, item(r.Name, protocol.CompletionItemKindMethod, "rule of built-in "+base.Name, ruleDoc(r, "")))
			}
		}
	case "event":
		if c.d.kind != policyKind {
			out = eventNames()
		}
	}
	return out
}

func eventNames() []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for i := range contract.Events {
		e := &contract.Events[i]
		out = append(out, item(e.Name, protocol.CompletionItemKindEvent, "event", eventDoc(e)))
	}
	return out
}

func (c *cursor) effectNames() []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for i := range contract.Effects {
		e := &contract.Effects[i]
		out = append(out, item(e.Name, protocol.CompletionItemKindFunction, "effect", effectDoc(e)))
	}
	return out
}

// toolNames complete `event.name == '…'`: the policy's tools on a tool
// rule, its commands on a command rule, both elsewhere.
func (c *cursor) toolNames() []protocol.CompletionItem {
	events := ruleEvents(c.path)
	want := map[string]bool{}
	for _, e := range events {
		want[e] = true
	}
	all := len(events) == 0
	var out []protocol.CompletionItem
	p := c.outline()
	if all || want["tool"] {
		for _, t := range p.Tools {
			out = append(out, item(t.Name, protocol.CompletionItemKindInterface, "tool", toolDoc(t)))
		}
	}
	if all || want["command"] {
		for _, x := range p.Commands {
			out = append(out, item(x.Name, protocol.CompletionItemKindInterface, "command", commandDoc(x)))
		}
	}
	return out
}

// inString reports whether the text ends inside a double-quoted string.
func inString(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			n++
		}
	}
	return n%2 == 1
}

// value completes inside an attribute's value.
func (c *cursor) value() []protocol.CompletionItem {
	a := c.attr
	start := min(max(a.EqualsRange.End.Byte, 0), c.off)
	val := string(c.src[start:c.off])
	quoted := inString(val)
	p := c.outline()
	switch c.inner() {
	case "rule", "override", "property":
		switch a.Name {
		case "on", "cycle_ends_on", "new_input_on":
			if quoted || a.Name == "new_input_on" && tab().keyPos.MatchString(val) {
				return eventNames()
			}
		case "never", "of", "no_loop_of":
			if quoted {
				return c.effectNames()
			}
		case "from", "to", "set":
			if m := tab().key.FindStringSubmatch(val); m != nil && a.Name != "set" {
				if x, ok := p.Slot(m[1]); ok {
					var out []protocol.CompletionItem
					for _, v := range x.Enum {
						out = append(out, item(v, protocol.CompletionItemKindEnumMember, "value of slot "+x.Name, slotDoc(x)))
					}
					return out
				}
				return nil
			}
			if !quoted && strings.Contains(val, "{") && tab().keyPos.MatchString(val) {
				var out []protocol.CompletionItem
				for _, x := range p.Slots {
					if x.IsEnum() == (a.Name != "set") {
						out = append(out, item(x.Name, protocol.CompletionItemKindVariable, slotDetail(x), slotDoc(x)))
					}
				}
				return out
			}
		}
	case "effect":
		if len(c.path[len(c.path)-1].Labels) == 0 || !quoted {
			return nil
		}
		e, ok := contract.LookupEffect(c.path[len(c.path)-1].Labels[0])
		if !ok {
			return nil
		}
		arg, ok := e.Arg(a.Name)
		if !ok {
			return nil
		}
		var out []protocol.CompletionItem
		switch {
		case arg.Message:
			for _, m := range p.Messages {
				out = append(out, item(m.Name, protocol.CompletionItemKindText, "message", messageDoc(m)))
			}
		case len(arg.Enum) > 0:
			for _, v := range arg.Enum {
				out = append(out, item(v, protocol.CompletionItemKindEnumMember, argDetail(arg), argDoc(e, arg)))
			}
		}
		return out
	case "verify":
		if !quoted {
			return nil
		}
		var out []protocol.CompletionItem
		switch a.Name {
		case "unfired":
			for _, r := range p.Rules {
				out = append(out, item(r.Name, protocol.CompletionItemKindMethod, "rule", ruleDoc(r, "")))
			}
		case "unreached":
			for _, x := range p.Slots {
				for _, v := range x.Enum {
					out = append(out, item(x.Name+"."+v, protocol.CompletionItemKindEnumMember, "value of slot "+x.Name, slotDoc(x)))
				}
			}
		}
		return out
	}
	return nil
}

// attributeNames complete at the start of a line: the attributes and
// blocks of the block the cursor is in, an effect's arguments, a test
// event's facts, a use block's params.
func (c *cursor) attributeNames() []protocol.CompletionItem {
	inner := c.inner()
	if c.d.kind == testKind {
		if inner == "event" {
			if b := c.path[len(c.path)-1]; len(b.Labels) > 0 {
				if e, ok := contract.LookupEvent(b.Labels[0]); ok {
					var out []protocol.CompletionItem
					for _, f := range e.AllFacts() {
						out = append(out, item(f.Name, protocol.CompletionItemKindField, factDetail(f), factDoc(f, []string{e.Name})))
					}
					return append(out, keywords([]string{"expect"})...)
				}
			}
		}
		return keywords(tab().testWords[inner])
	}
	switch inner {
	case "effect":
		b := c.path[len(c.path)-1]
		if len(b.Labels) == 0 {
			return nil
		}
		e, ok := contract.LookupEffect(b.Labels[0])
		if !ok {
			return nil
		}
		var out []protocol.CompletionItem
		for _, a := range e.Args {
			out = append(out, item(a.Name, protocol.CompletionItemKindProperty, argDetail(a), argDoc(e, a)))
		}
		return out
	case "use":
		var out []protocol.CompletionItem
		if base := c.syn.base; base != nil {
			for _, x := range base.Params {
				out = append(out, item(x.Name, protocol.CompletionItemKindConstant, paramDetail(x), paramDoc(x)))
			}
		}
		return out
	}
	return keywords(tab().blockWords[inner])
}
