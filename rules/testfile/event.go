package testfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Event is one `event "NAME" {}` block of a run.
type Event struct {
	Name string
	// Facts are the facts the block gives, in source order, converted to
	// the contract's types: bool, int64, string or map[string]any. An
	// event that expects an error keeps facts of the wrong type or unknown
	// name as they are written, so that the engine gets to reject them.
	Facts []Fact
	// Expect holds the expectations on this event's decision; nil when the
	// block has none.
	Expect *EventExpect

	NameRange hcl.Range
	DeclRange hcl.Range
}

// Fact is one fact given by an event block.
type Fact struct {
	Name  string
	Value any
	Range hcl.Range
}

// JSON renders the event as the host sends it: {"event": NAME, …facts}.
// Omitted facts are left out, for the engine to fill with the contract's
// defaults.
func (e *Event) JSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"event":`)
	writeJSON(&b, e.Name)
	for _, f := range e.Facts {
		b.WriteByte(',')
		writeJSON(&b, f.Name)
		b.WriteByte(':')
		writeJSON(&b, f.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		// Facts hold only JSON-compatible values; keep the output valid.
		data = []byte("null")
	}
	b.Write(data)
}

var eventBlockSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "expect"},
	},
}

func decodeEventBlock(b *hcl.Block) (*Event, hcl.Diagnostics) {
	ev := &Event{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	content, _, diags := b.Body.PartialContent(eventBlockSchema)
	for _, blk := range content.Blocks {
		if ev.Expect != nil {
			diags = append(diags, errorAt(blk.DefRange, "Duplicate expect block",
				fmt.Sprintf("This event already has an expect block at %s.", shortPos(ev.Expect.DeclRange))))
			continue
		}
		ex, d := decodeEventExpect(blk)
		diags = append(diags, d...)
		ev.Expect = ex
	}
	attrs, d := factAttributes(b.Body)
	diags = append(diags, d...)
	// An event the engine must reject may be malformed on purpose.
	lenient := ev.Expect != nil && ev.Expect.Error != nil

	spec, known := contract.LookupEvent(ev.Name)
	if !known && !lenient {
		diags = append(diags, errorAt(b.LabelRanges[0], "Unknown event",
			fmt.Sprintf("%q is not an event of the host contract%s\nEvents: %s.",
				ev.Name, suggest(ev.Name, contract.EventNames()), strings.Join(contract.EventNames(), ", "))))
	}

	for _, attr := range attrs {
		v, d := attr.Expr.Value(nil)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		var fact *contract.Fact
		if known {
			for _, f := range spec.AllFacts() {
				if f.Name == attr.Name {
					fact = &f
					break
				}
			}
		}
		if fact == nil {
			if known && !lenient {
				names := factNames(spec)
				diags = append(diags, errorAt(attr.NameRange, "Unknown fact",
					fmt.Sprintf("Event %q has no fact %q%s\nIts facts: %s.",
						ev.Name, attr.Name, suggest(attr.Name, names), strings.Join(names, ", "))))
				continue
			}
			if !known && !lenient {
				continue
			}
			g, err := genericValue(v)
			if err != nil {
				diags = append(diags, errorAt(attr.Expr.Range(), "Invalid fact value", err.Error()))
				continue
			}
			ev.Facts = append(ev.Facts, Fact{Name: attr.Name, Value: g, Range: attr.Expr.Range()})
			continue
		}
		fv, err := factValue(*fact, v)
		if err != nil {
			if !lenient {
				diags = append(diags, errorAt(attr.Expr.Range(), "Invalid fact value",
					fmt.Sprintf("Fact %q of event %q: %s.", attr.Name, ev.Name, err)))
				continue
			}
			g, gerr := genericValue(v)
			if gerr != nil {
				diags = append(diags, errorAt(attr.Expr.Range(), "Invalid fact value", gerr.Error()))
				continue
			}
			fv = g
		}
		ev.Facts = append(ev.Facts, Fact{Name: attr.Name, Value: fv, Range: attr.Expr.Range()})
	}
	return ev, diags
}

// factValue converts v to the contract type of f.
func factValue(f contract.Fact, v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, fmt.Errorf("null is not a value; leave the fact out to take its default")
	}
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("the value is not known")
	}
	t := v.Type()
	switch f.Type {
	case contract.Bool:
		if t != cty.Bool {
			return nil, fmt.Errorf("want a bool, got %s", t.FriendlyName())
		}
		return v.True(), nil
	case contract.Int:
		if t != cty.Number {
			return nil, fmt.Errorf("want an int, got %s", t.FriendlyName())
		}
		bf := v.AsBigFloat()
		if !bf.IsInt() {
			return nil, fmt.Errorf("want an int, got %s", bf.Text('g', -1))
		}
		i, acc := bf.Int64()
		if acc != big.Exact {
			return nil, fmt.Errorf("%s does not fit in 64 bits", bf.Text('f', 0))
		}
		return i, nil
	case contract.String:
		if t != cty.String {
			return nil, fmt.Errorf("want a string, got %s", t.FriendlyName())
		}
		s := v.AsString()
		if len(f.Enum) > 0 && !contains(f.Enum, s) {
			return nil, fmt.Errorf("%q is not one of %s", s, quoteList(f.Enum))
		}
		return s, nil
	case contract.Object:
		if !(t.IsObjectType() || t.IsMapType()) {
			return nil, fmt.Errorf("want an object such as { note = \"x\" }, got %s", t.FriendlyName())
		}
		return genericValue(v)
	}
	return nil, fmt.Errorf("unsupported fact type %s", f.Type)
}

func factNames(e *contract.Event) []string {
	var out []string
	for _, f := range e.AllFacts() {
		out = append(out, f.Name)
	}
	return out
}

// factAttributes returns the attributes of an event body, in source order,
// and an error for any block other than expect.
func factAttributes(body hcl.Body) ([]*hcl.Attribute, hcl.Diagnostics) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		_, rest, diags := body.PartialContent(eventBlockSchema)
		attrs, d := rest.JustAttributes()
		return sortAttrs(attrs), append(diags, d...)
	}
	var diags hcl.Diagnostics
	for _, blk := range sb.Blocks {
		if blk.Type != "expect" {
			diags = append(diags, errorAt(blk.TypeRange, "Unsupported block type",
				fmt.Sprintf("Blocks of type %q are not expected in an event; an event holds facts and one expect block.", blk.Type)))
		}
	}
	attrs := hcl.Attributes{}
	for name, a := range sb.Attributes {
		attrs[name] = a.AsHCLAttribute()
	}
	return sortAttrs(attrs), diags
}

// sortAttrs returns attributes in source order.
func sortAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		out = append(out, attrs[name])
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Range.Start.Byte < out[j-1].Range.Start.Byte; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// suggest is the language's "did you mean" for test files too.
func suggest(name string, names []string) string { return lang.Suggest(name, names) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
