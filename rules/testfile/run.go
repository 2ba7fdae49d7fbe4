package testfile

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Run is one `run "NAME" {}` block.
type Run struct {
	Name string
	// Params are the run's own overrides, applied over the file's.
	Params []Param
	// State is the starting state: the slots given; the others start at
	// their initial values.
	State []Slot
	// Events are sent to one fresh session, in order.
	Events []*Event
	// Expect holds the expectations on the final state; nil when absent.
	Expect *FinalExpect
	// Asserts are the free checks, in source order.
	Asserts []*Assert

	NameRange hcl.Range
	DeclRange hcl.Range
}

// FinalExpect is the run-level `expect {}` block.
type FinalExpect struct {
	// State lists slots whose final values must equal; nil when absent.
	State     *StateExpect
	DeclRange hcl.Range
}

var runSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "params"},
		{Name: "state"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "event", LabelNames: []string{"name"}},
		{Type: "expect"},
		{Type: "assert"},
	},
}

var finalExpectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "state"},
	},
}

func decodeRunBlock(src []byte, b *hcl.Block) (*Run, hcl.Diagnostics) {
	run := &Run{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(runSchema)
	if attr, ok := content.Attributes["params"]; ok {
		ps, d := decodeParams(attr)
		diags = append(diags, d...)
		run.Params = ps
	}
	if attr, ok := content.Attributes["state"]; ok {
		slots, d := decodeSlots(attr)
		diags = append(diags, d...)
		run.State = slots
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "event":
			ev, d := decodeEventBlock(blk)
			diags = append(diags, d...)
			run.Events = append(run.Events, ev)
		case "expect":
			if run.Expect != nil {
				diags = append(diags, errorAt(blk.DefRange, "Duplicate expect block",
					fmt.Sprintf("This run already has an expect block at %s.", shortPos(run.Expect.DeclRange))))
				continue
			}
			fe, d := decodeFinalExpect(blk)
			diags = append(diags, d...)
			run.Expect = fe
		case "assert":
			a, d := decodeAssertBlock(src, blk)
			diags = append(diags, d...)
			if a != nil {
				run.Asserts = append(run.Asserts, a)
			}
		}
	}
	return run, diags
}

func decodeFinalExpect(b *hcl.Block) (*FinalExpect, hcl.Diagnostics) {
	fe := &FinalExpect{DeclRange: b.DefRange}
	content, diags := b.Body.Content(finalExpectSchema)
	if attr, ok := content.Attributes["state"]; ok {
		slots, d := decodeSlots(attr)
		diags = append(diags, d...)
		fe.State = &StateExpect{Slots: slots, Range: attr.Expr.Range()}
	}
	return fe, diags
}
