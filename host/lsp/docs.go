package lsp

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// The one-line detail and the Markdown documentation of each kind of
// name, shared by completion and hover. Facts, events and effects are
// documented by the contract; a policy's parts by their declarations.

func factDetail(f contract.Fact) string {
	if len(f.Enum) > 0 {
		return f.Type.String() + " (" + quoteAll(f.Enum) + ")"
	}
	return f.Type.String()
}

func factDoc(f contract.Fact, events []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**event.%s** — %s\n\n%s", f.Name, factDetail(f), f.Doc)
	if f.Default != nil {
		fmt.Fprintf(&b, "\n\nDefault when the host omits it: `%v`", defaultText(f.Default))
	}
	if len(events) > 0 {
		fmt.Fprintf(&b, "\n\nOn: %s", strings.Join(events, ", "))
	}
	return b.String()
}

func defaultText(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func eventDoc(e *contract.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**event %s** (Pi hook: %s)\n\n%s", e.Name, e.Hook, e.Reported)
	if e.Doc != "" {
		fmt.Fprintf(&b, "\n\n%s", e.Doc)
	}
	if len(e.Facts) > 0 {
		b.WriteString("\n\nOwn facts:")
		for _, f := range e.Facts {
			fmt.Fprintf(&b, "\n- `%s` %s — %s", f.Name, factDetail(f), f.Doc)
		}
	}
	return b.String()
}

func effectDoc(e *contract.Effect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**effect %s**\n\n%s", e.Name, e.Doc)
	if len(e.Args) > 0 {
		b.WriteString("\n\nArguments:")
		for _, a := range e.Args {
			fmt.Fprintf(&b, "\n- `%s` %s — %s", a.Name, argDetail(a), a.Doc)
		}
	}
	return b.String()
}

func argDetail(a contract.Arg) string {
	d := a.Type.String()
	switch {
	case len(a.Enum) > 0:
		d += " (" + quoteAll(a.Enum) + ")"
	case a.Message:
		d += " (a message name)"
	}
	if a.Required {
		d += ", required"
	}
	return d
}

func argDoc(e *contract.Effect, a contract.Arg) string {
	return fmt.Sprintf("**%s** argument of effect %s — %s\n\n%s", a.Name, e.Name, argDetail(a), a.Doc)
}

func slotDetail(s *rules.Slot) string {
	switch {
	case s.IsEnum():
		return "enum (" + quoteAll(s.Enum) + ")"
	case s.Time:
		return "time"
	}
	return s.Type.String()
}

func slotDoc(s *rules.Slot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**slot %s** — %s", s.Name, slotDetail(s))
	if s.Description != "" {
		fmt.Fprintf(&b, "\n\n%s", s.Description)
	}
	fmt.Fprintf(&b, "\n\nInitial: `%s`", lang.FormatValue(s.Type, s.Initial))
	if s.Durable {
		b.WriteString("; durable (survives reopen, fork and /tree)")
	}
	return b.String()
}

func valueText(v cty.Value) string {
	if v == cty.NilVal || !v.IsKnown() {
		return "?"
	}
	return hclfmt.Value(v)
}

func paramDetail(p *rules.Param) string {
	if p.Type == cty.NilType {
		return "param"
	}
	return typeexpr.TypeString(p.Type)
}

func paramDoc(p *rules.Param) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**param %s** — %s", p.Name, paramDetail(p))
	if p.Description != "" {
		fmt.Fprintf(&b, "\n\n%s", p.Description)
	}
	fmt.Fprintf(&b, "\n\nDefault: `%s`", valueText(p.Default))
	if p.Value != cty.NilVal {
		fmt.Fprintf(&b, "; in force: `%s` (%s)", valueText(p.Value), p.Origin)
	}
	return b.String()
}

func messageDoc(m *rules.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**message %s**", m.Name)
	if m.Description != "" {
		fmt.Fprintf(&b, " — %s", m.Description)
	}
	fmt.Fprintf(&b, "\n\n```text\n%s\n```", strings.TrimRight(m.Text, "\n"))
	return b.String()
}

func derivedDoc(d *rules.Derived, src []byte) string {
	out := fmt.Sprintf("**derived %s**", d.Name)
	if d.Prog != nil {
		out += " — " + d.Prog.Type.String()
	}
	if r := d.Expr.Range(); r.Start.Byte >= 0 && r.End.Byte <= len(src) && r.Start.Byte <= r.End.Byte && src != nil {
		out += "\n\n```hcl\nvalue = " + string(src[r.Start.Byte:r.End.Byte]) + "\n```"
	}
	return out
}

func ruleDoc(r *rules.Rule, origin string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**rule %s**", r.Name)
	if r.Group != nil {
		fmt.Fprintf(&b, " in group %s", r.Group.Name)
	}
	if origin != "" {
		fmt.Fprintf(&b, " (%s)", origin)
	}
	if r.Description != "" {
		fmt.Fprintf(&b, "\n\n%s", r.Description)
	}
	if len(r.On) > 0 {
		fmt.Fprintf(&b, "\n\nOn: %s", strings.Join(r.On, ", "))
	}
	if len(r.Effects) > 0 {
		var names []string
		for _, e := range r.Effects {
			names = append(names, e.Name)
		}
		fmt.Fprintf(&b, "; effects: %s", strings.Join(names, ", "))
	}
	return b.String()
}

func toolDoc(t *rules.Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**tool %s**\n\n%s", t.Name, t.Description)
	for _, p := range t.Parameters {
		req := ""
		if p.Required {
			req = ", required"
		}
		fmt.Fprintf(&b, "\n- `%s` %s%s — %s", p.Name, p.Type, req, p.Description)
	}
	return b.String()
}

func commandDoc(c *rules.Command) string {
	out := fmt.Sprintf("**command /%s**\n\n%s", c.Name, c.Description)
	if c.Usage != "" {
		out += "\n\nUsage: " + c.Usage
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// commonFacts are the facts of an expression whose rule names events:
// the facts every one of them has (the loader checks the expression
// against each), or the common facts when it names none.
func commonFacts(events []string) []contract.Fact {
	if len(events) == 0 {
		return contract.CommonFacts
	}
	var out []contract.Fact
	first, ok := contract.LookupEvent(events[0])
	if !ok {
		return contract.CommonFacts
	}
	for _, f := range first.AllFacts() {
		all := true
		for _, name := range events[1:] {
			e, ok := contract.LookupEvent(name)
			if !ok || !hasFact(e, f.Name) {
				all = false
				break
			}
		}
		if all {
			out = append(out, f)
		}
	}
	return out
}

func hasFact(e *contract.Event, name string) bool {
	for _, f := range e.AllFacts() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// lookupFact finds a fact on any of the events (or the common facts).
func lookupFact(events []string, name string) (contract.Fact, bool) {
	for _, f := range commonFacts(nil) {
		if f.Name == name {
			return f, true
		}
	}
	for _, ev := range events {
		if e, ok := contract.LookupEvent(ev); ok {
			for _, f := range e.Facts {
				if f.Name == name {
					return f, true
				}
			}
		}
	}
	return contract.Fact{}, false
}
