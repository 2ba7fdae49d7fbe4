package rules

import (
	"github.com/hashicorp/hcl/v2"
)

// Message is a named text the host shows or injects (checkpoint warning,
// reminder, boot, continuation, notices). Teams reword it without
// recompiling.
type Message struct {
	Name        string
	Text        string
	Description string
	// Kind is what injecting the message means (kind.go); "" for none.
	Kind      DecisionKind
	DeclRange hcl.Range
}

// Tool is a tool the host registers for the model.
type Tool struct {
	Name        string
	Description string
	Parameters  []*ToolParameter
	DeclRange   hcl.Range
}

// ToolParameter is one parameter of a tool.
type ToolParameter struct {
	Name        string
	Type        string // string, number, integer, boolean
	Description string
	Required    bool
}

// Command is a slash command the host registers for the user.
type Command struct {
	Name        string
	Description string
	Usage       string
	DeclRange   hcl.Range
}

var messageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "text", Required: true}, {Name: "description"}, {Name: "kind"}},
}

func decodeMessage(b *hcl.Block) (*Message, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, messageSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	m := &Message{Name: b.Labels[0], DeclRange: b.DefRange}
	var d hcl.Diagnostics
	m.Text, d = literalString(content.Attributes["text"].Expr, "a message text")
	diags = append(diags, d...)
	if a, ok := content.Attributes["description"]; ok {
		m.Description, d = literalString(a.Expr, "description")
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["kind"]; ok {
		m.Kind, d = decodeKind(a)
		diags = append(diags, d...)
	}
	return m, diags
}

var toolSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description", Required: true}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "parameter", LabelNames: []string{"name"}}},
}

var toolParamSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type", Required: true}, {Name: "description"}, {Name: "required"}},
}

var toolParamTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true}

func decodeTool(b *hcl.Block) (*Tool, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, toolSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	t := &Tool{Name: b.Labels[0], DeclRange: b.DefRange}
	var d hcl.Diagnostics
	t.Description, d = literalString(content.Attributes["description"].Expr, "description")
	diags = append(diags, d...)
	seen := map[string]bool{}
	for _, pb := range content.Blocks {
		pc, d := bodyContent(pb.Body, toolParamSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		p := &ToolParameter{Name: pb.Labels[0]}
		if seen[p.Name] {
			diags = append(diags, errorAt(ptr(pb.LabelRanges[0]), "Duplicate parameter", "tool %q already has a parameter %q", t.Name, p.Name))
			continue
		}
		seen[p.Name] = true
		ty, ok := keyword(pc.Attributes["type"].Expr)
		if !ok || !toolParamTypes[ty] {
			diags = append(diags, errorAt(ptr(pc.Attributes["type"].Expr.Range()), "Unknown parameter type", "a tool parameter type is string, number, integer or boolean"))
		}
		p.Type = ty
		if a, ok := pc.Attributes["description"]; ok {
			p.Description, d = literalString(a.Expr, "description")
			diags = append(diags, d...)
		}
		if a, ok := pc.Attributes["required"]; ok {
			p.Required, d = literalBool(a.Expr, "required")
			diags = append(diags, d...)
		}
		t.Parameters = append(t.Parameters, p)
	}
	return t, diags
}

var commandSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description", Required: true}, {Name: "usage"}},
}

func decodeCommand(b *hcl.Block) (*Command, hcl.Diagnostics) {
	content, diags := bodyContent(b.Body, commandSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	c := &Command{Name: b.Labels[0], DeclRange: b.DefRange}
	var d hcl.Diagnostics
	c.Description, d = literalString(content.Attributes["description"].Expr, "description")
	diags = append(diags, d...)
	if a, ok := content.Attributes["usage"]; ok {
		c.Usage, d = literalString(a.Expr, "usage")
		diags = append(diags, d...)
	}
	return c, diags
}
