package rules

import (
	"github.com/hashicorp/hcl/v2"
)

// Group is a set of rules of which at most one fires per event: the first,
// in file order, that matches.
type Group struct {
	Name      string
	Rules     []*Rule
	DeclRange hcl.Range
}

// Rule is one decoded rule: on these events, from these states, when the
// guard holds, go to these states, set these slots, emit these effects.
type Rule struct {
	Name        string
	Description string
	// Kind is what the rule's firing means (kind.go); "" for none.
	Kind      DecisionKind
	Group     *Group
	On        []string
	OnRanges  []hcl.Range
	From      []entry
	When      hcl.Expression // nil: always
	To        []entry
	Set       []entry
	Effects   []*Effect
	NameRange hcl.Range
	DeclRange hcl.Range
}

// Effect is one decoded effect of a rule.
type Effect struct {
	Name      string
	NameRange hcl.Range
	Args      hcl.Attributes
	DeclRange hcl.Range
}

var groupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "rule", LabelNames: []string{"name"}}},
}

var ruleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "on", Required: true},
		{Name: "from"},
		{Name: "when"},
		{Name: "to"},
		{Name: "set"},
		{Name: "description"},
		{Name: "kind"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "effect", LabelNames: []string{"name"}}},
}

func decodeGroup(b *hcl.Block) (*Group, hcl.Diagnostics) {
	g := &Group{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := bodyContent(b.Body, groupSchema)
	for _, rb := range content.Blocks {
		r, d := decodeRule(rb, g)
		diags = append(diags, d...)
		if r != nil {
			g.Rules = append(g.Rules, r)
		}
	}
	return g, diags
}

func decodeRule(b *hcl.Block, g *Group) (*Rule, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, ruleSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	r := &Rule{Name: b.Labels[0], Group: g, NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	var d hcl.Diagnostics
	r.On, r.OnRanges, d = stringOrList(content.Attributes["on"].Expr, "an event name")
	diags = append(diags, d...)
	if a, ok := content.Attributes["description"]; ok {
		r.Description, d = literalString(a.Expr, "description")
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["kind"]; ok {
		r.Kind, d = decodeKind(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["from"]; ok {
		r.From, d = objectEntries(a.Expr, "from")
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["when"]; ok {
		r.When = a.Expr
	}
	if a, ok := content.Attributes["to"]; ok {
		r.To, d = objectEntries(a.Expr, "to")
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["set"]; ok {
		r.Set, d = objectEntries(a.Expr, "set")
		diags = append(diags, d...)
	}
	for _, eb := range content.Blocks {
		attrs, d := bodyAttributes(eb.Body)
		diags = append(diags, d...)
		r.Effects = append(r.Effects, &Effect{Name: eb.Labels[0], NameRange: eb.LabelRanges[0], Args: attrs, DeclRange: eb.DefRange})
	}
	return r, diags
}
