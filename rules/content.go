package rules

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// bodyContent is body.Content(schema), the same value made with fewer
// allocations where a policy is right: a native body each of whose
// arguments and blocks the schema names, with every required argument
// present and every block's labels as many as the schema's. HCL's
// Content makes its answer through PartialContent, which builds three
// maps and a remainder body to find what is left over, and allocates each
// argument and block on its own: 0.95 M of the 16.8 M instructions serve
// ran to its first answer, a sixth of the load's allocations. Any other
// body, and every body with a mistake, goes to HCL, so each diagnostic is
// HCL's own (TestContentIsHCLs).
//
// body must not be the remainder of a PartialContent: the items such a
// body hides are not visible from outside hclsyntax. Block bodies and a
// file's body, as the parser and hcltree make them, never are.
func bodyContent(body hcl.Body, schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	b, ok := body.(*hclsyntax.Body)
	if !ok || !fits(b, schema) {
		return body.Content(schema)
	}
	c := &hcl.BodyContent{Attributes: make(hcl.Attributes, len(b.Attributes)), MissingItemRange: b.MissingItemRange()}
	if len(b.Attributes) > 0 {
		all := make([]hcl.Attribute, 0, len(b.Attributes))
		for _, s := range schema.Attributes {
			if a, ok := b.Attributes[s.Name]; ok {
				all = append(all, hcl.Attribute{Name: a.Name, Expr: a.Expr, Range: a.SrcRange, NameRange: a.NameRange})
				c.Attributes[s.Name] = &all[len(all)-1]
			}
		}
	}
	if len(b.Blocks) > 0 {
		all := make([]hcl.Block, len(b.Blocks))
		c.Blocks = make(hcl.Blocks, len(b.Blocks))
		for i, bl := range b.Blocks {
			all[i] = hcl.Block{Type: bl.Type, Labels: bl.Labels, Body: bl.Body, DefRange: bl.DefRange(), TypeRange: bl.TypeRange, LabelRanges: bl.LabelRanges}
			c.Blocks[i] = &all[i]
		}
	}
	return c, nil
}

// fits reports whether HCL's Content would take every item of b into
// its answer and report nothing.
func fits(b *hclsyntax.Body, schema *hcl.BodySchema) bool {
	named := 0
	for _, s := range schema.Attributes {
		if _, ok := b.Attributes[s.Name]; ok {
			named++
		} else if s.Required {
			return false
		}
	}
	if named != len(b.Attributes) {
		return false
	}
	for _, bl := range b.Blocks {
		if !blockFits(bl, schema.Blocks) {
			return false
		}
	}
	return true
}

func blockFits(bl *hclsyntax.Block, schemas []hcl.BlockHeaderSchema) bool {
	for _, s := range schemas {
		if s.Type == bl.Type {
			return len(bl.Labels) == len(s.LabelNames)
		}
	}
	return false
}

// bodyAttributes is body.JustAttributes(), made as bodyContent makes its
// arguments, for a native body with no blocks (any other goes to HCL).
// The same precondition as bodyContent's holds.
func bodyAttributes(body hcl.Body) (hcl.Attributes, hcl.Diagnostics) {
	b, ok := body.(*hclsyntax.Body)
	if !ok || len(b.Blocks) > 0 {
		return body.JustAttributes()
	}
	attrs := make(hcl.Attributes, len(b.Attributes))
	all := make([]hcl.Attribute, 0, len(b.Attributes))
	for name, a := range b.Attributes {
		all = append(all, hcl.Attribute{Name: a.Name, Expr: a.Expr, Range: a.SrcRange, NameRange: a.NameRange})
		attrs[name] = &all[len(all)-1]
	}
	return attrs, nil
}
