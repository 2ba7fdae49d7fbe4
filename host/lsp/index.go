package lsp

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// what a name in a document stands for.
type what int

const (
	wFact what = iota + 1
	wEvent
	wEffect
	wEffectArg
	wSlot
	wEnumValue
	wParam
	wMessage
	wDerived
	wRule
	wGroup
	wTool
	wCommand
	wBuiltin
)

// occ is one occurrence of a name in a document: a declaration (a block
// label) or a reference, at byte offsets [start, end).
type occ struct {
	what       what
	name       string
	owner      string   // the effect of an argument, the slot of an enum value
	events     []string // for a fact: the events whose facts it is among
	decl       bool
	start, end int
}

// index lists every occurrence of a name in a native-syntax document, read
// off HCL's syntax tree: labels, attribute names, the literal strings
// that name events, effects, messages and enum values, and the names an
// expression string reads (event.X, state.X, param.X, message.X, derived
// values by bare name).
type index struct {
	occs []occ
	// names are the policy's derived values, tools and commands: a bare
	// name in an expression is a derived value, a quoted one
	// (event.name == 'wipe_memory') a tool or a command.
	names map[what]map[string]bool
	src   []byte
}

func buildIndex(body *hclsyntax.Body, src []byte, k kind, names map[what]map[string]bool) *index {
	ix := &index{names: names, src: src}
	if body == nil {
		return ix
	}
	if k == testKind {
		if a, ok := body.Attributes["params"]; ok {
			ix.keys(a.Expr, wParam)
		}
	}
	for _, b := range body.Blocks {
		ix.block(b, nil, k)
	}
	sort.SliceStable(ix.occs, func(i, j int) bool { return ix.occs[i].start < ix.occs[j].start })
	return ix
}

// at is the innermost occurrence holding offset off.
func (ix *index) at(off int) *occ {
	var best *occ
	for i := range ix.occs {
		o := &ix.occs[i]
		if o.start <= off && off <= o.end && (best == nil || o.end-o.start < best.end-best.start) {
			best = o
		}
	}
	return best
}

func (ix *index) add(o occ) {
	if o.start >= 0 && o.end <= len(ix.src) && o.start <= o.end {
		ix.occs = append(ix.occs, o)
	}
}

func (ix *index) block(b *hclsyntax.Block, outer []*hclsyntax.Block, k kind) {
	if len(b.Labels) > 0 {
		if w, ok := tab().labelWhat[b.Type]; ok && (k == policyKind || b.Type == "event") {
			r := b.LabelRanges[0]
			decl := w != wEffect && w != wBuiltin && w != wEvent && b.Type != "override" && b.Type != "disable"
			// The label's range includes its quotes.
			o := occ{what: w, name: b.Labels[0], decl: decl, start: r.Start.Byte + 1, end: r.End.Byte - 1}
			if b.Type == "override" || b.Type == "disable" {
				o.owner = "base" // names the built-in's rule
			}
			ix.add(o)
		}
	}
	path := append(append([]*hclsyntax.Block(nil), outer...), b)
	for _, a := range sortedAttributes(b.Body) {
		ix.attribute(a, path, k)
	}
	for _, c := range b.Body.Blocks {
		ix.block(c, path, k)
	}
}

func sortedAttributes(body *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// ruleEvents are the events of the rule (or property) an expression is
// in, from its `on`; nil means the common facts only.
func ruleEvents(path []*hclsyntax.Block) []string {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i].Type {
		case "rule", "override", "property":
			if a, ok := path[i].Body.Attributes["on"]; ok {
				var out []string
				for _, s := range literalStrings(a.Expr) {
					out = append(out, s.value)
				}
				return out
			}
			return nil
		}
	}
	return nil
}

type strLit struct {
	value      string
	start, end int // the text inside the quotes
}

// literalStrings are the literal strings of a string or a list of them.
func literalStrings(e hclsyntax.Expression) []strLit {
	switch e := e.(type) {
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if l, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok && l.Val.Type() == cty.String {
				r := e.SrcRange
				return []strLit{{value: l.Val.AsString(), start: r.Start.Byte + 1, end: r.End.Byte - 1}}
			}
		}
		if len(e.Parts) == 0 {
			r := e.SrcRange
			return []strLit{{start: r.Start.Byte + 1, end: r.End.Byte - 1}}
		}
	case *hclsyntax.TupleConsExpr:
		var out []strLit
		for _, x := range e.Exprs {
			out = append(out, literalStrings(x)...)
		}
		return out
	}
	return nil
}

func parentType(path []*hclsyntax.Block) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1].Type
}

func (ix *index) attribute(a *hclsyntax.Attribute, path []*hclsyntax.Block, k kind) {
	parent := path[len(path)-1]
	name := func(w what, owner string) {
		ix.add(occ{what: w, name: a.Name, owner: owner, start: a.NameRange.Start.Byte, end: a.NameRange.End.Byte})
	}
	events := ruleEvents(path)
	switch parent.Type {
	case "rule", "override", "property":
		switch a.Name {
		case "on", "cycle_ends_on", "new_input_on":
			for _, s := range literalStrings(a.Expr) {
				ix.add(occ{what: wEvent, name: s.value, start: s.start, end: s.end})
			}
			if obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
				for _, it := range obj.Items {
					if key := hcl.ExprAsKeyword(it.KeyExpr); key != "" {
						r := it.KeyExpr.Range()
						ix.add(occ{what: wEvent, name: key, start: r.Start.Byte, end: r.End.Byte})
					}
					ix.expr(it.ValueExpr, events)
				}
			}
			return
		case "never", "of", "no_loop_of":
			for _, s := range literalStrings(a.Expr) {
				ix.add(occ{what: wEffect, name: s.value, start: s.start, end: s.end})
			}
			return
		case "from", "to", "set":
			obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
			if !ok {
				return
			}
			for _, it := range obj.Items {
				key := hcl.ExprAsKeyword(it.KeyExpr)
				r := it.KeyExpr.Range()
				ix.add(occ{what: wSlot, name: key, start: r.Start.Byte, end: r.End.Byte})
				if a.Name == "set" {
					ix.expr(it.ValueExpr, events)
					continue
				}
				for _, s := range literalStrings(it.ValueExpr) {
					ix.add(occ{what: wEnumValue, name: s.value, owner: key, start: s.start, end: s.end})
				}
			}
			return
		}
	case "effect":
		if len(parent.Labels) == 0 {
			return
		}
		name(wEffectArg, parent.Labels[0])
		if eff, ok := contract.LookupEffect(parent.Labels[0]); ok {
			if arg, ok := eff.Arg(a.Name); ok && arg.Literal() {
				if arg.Message {
					for _, s := range literalStrings(a.Expr) {
						ix.add(occ{what: wMessage, name: s.value, start: s.start, end: s.end})
					}
				}
				return
			}
		}
	case "use":
		name(wParam, "")
		return
	case "verify":
		if a.Name == "unfired" {
			for _, s := range literalStrings(a.Expr) {
				ix.add(occ{what: wRule, name: s.value, start: s.start, end: s.end})
			}
			return
		}
	case "run", "expect":
		if k == testKind {
			switch a.Name {
			case "params":
				ix.keys(a.Expr, wParam)
			case "state":
				ix.keys(a.Expr, wSlot)
			case "rules":
				for _, s := range literalStrings(a.Expr) {
					ix.add(occ{what: wRule, name: s.value, start: s.start, end: s.end})
				}
			}
			return
		}
	case "event":
		if k != policyKind && len(parent.Labels) > 0 {
			ix.add(occ{what: wFact, name: a.Name, events: []string{parent.Labels[0]}, start: a.NameRange.Start.Byte, end: a.NameRange.End.Byte})
			return
		}
	}
	if k == policyKind {
		ix.expr(a.Expr, events)
	}
}

// expr scans the literal text of an expression string for the names it
// reads: event.X, state.X, param.X, message.X and derived values by
// name. Text inside single quotes (an expression's own string literals)
// names nothing.
func (ix *index) expr(e hclsyntax.Expression, events []string) {
	for _, s := range literalStrings(e) {
		// Heredocs and escapes change the text: scan the source itself,
		// which for a plain quoted string is the value.
		if s.start < 0 || s.end > len(ix.src) || s.start > s.end {
			continue
		}
		raw := ix.src[s.start:s.end]
		for _, m := range tab().ref.FindAllSubmatchIndex(raw, -1) {
			start, end := s.start+m[0], s.start+m[1]
			if m[2] >= 0 {
				root := string(raw[m[2]:m[3]])
				member := string(raw[m[4]:m[5]])
				w := map[string]what{"event": wFact, "state": wSlot, "param": wParam, "message": wMessage}[root]
				ix.add(occ{what: w, name: member, events: events, start: s.start + m[4], end: s.start + m[5]})
				continue
			}
			word := string(raw[m[0]:m[1]])
			if len(word) > 2 && word[0] == '\'' {
				name := word[1 : len(word)-1]
				for _, w := range []what{wTool, wCommand} {
					if ix.names[w][name] {
						ix.add(occ{what: w, name: name, start: start + 1, end: end - 1})
					}
				}
				continue
			}
			if ix.names[wDerived][word] && (m[0] == 0 || raw[m[0]-1] != '.') {
				ix.add(occ{what: wDerived, name: word, start: start, end: end})
			}
		}
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 1 {
		return
	}
	// A heredoc: its parts are literal lines.
	if t, ok := e.(*hclsyntax.TemplateExpr); ok {
		for _, p := range t.Parts {
			if l, ok := p.(*hclsyntax.LiteralValueExpr); ok {
				r := l.SrcRange
				ix.expr(&hclsyntax.TemplateExpr{Parts: []hclsyntax.Expression{l}, SrcRange: hcl.Range{Start: hcl.Pos{Byte: r.Start.Byte - 1}, End: hcl.Pos{Byte: r.End.Byte + 1}}}, events)
			}
		}
	}
}

// keys records the keys of an object (a test file's params or state) as
// names of params or slots.
func (ix *index) keys(e hclsyntax.Expression, w what) {
	obj, ok := e.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return
	}
	for _, it := range obj.Items {
		if key := hcl.ExprAsKeyword(it.KeyExpr); key != "" {
			r := it.KeyExpr.Range()
			ix.add(occ{what: w, name: key, start: r.Start.Byte, end: r.End.Byte})
		}
	}
}
