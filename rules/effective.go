package rules

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
)

// EffectiveSource is the policy a file that uses a built-in amounts to, as
// one policy file: the built-in's text with the params in force, each
// replaced rule in its place, each disabled rule left out, and the file's
// additions, with a comment at every part saying whether it is inherited,
// replaced or added. For a policy written whole it is the file itself.
func EffectiveSource(p *Policy) ([]byte, error) {
	c := p.Composition
	if c == nil {
		src, ok := p.Sources[p.DeclRange.Filename]
		if !ok {
			return nil, fmt.Errorf("the source of policy %q is not at hand", p.Name)
		}
		return src, nil
	}
	base, own := p.Sources[c.BaseFile], p.Sources[c.File]
	baseFile, d1 := hclsyntax.ParseConfig(base, c.BaseFile, hcl.InitialPos)
	ownFile, d2 := hclsyntax.ParseConfig(own, c.File, hcl.InitialPos)
	if d1.HasErrors() || d2.HasErrors() {
		return nil, fmt.Errorf("the effective source is shown for policies in native HCL syntax only")
	}
	e := &effective{p: p, c: c, base: base, own: own, ownGroups: map[string][]*hclsyntax.Block{}}
	var ownTop []*hclsyntax.Block
	var ownPolicy *hclsyntax.Block
	baseGroups := map[string]bool{}
	for _, b := range baseFile.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "group" {
			baseGroups[b.Labels[0]] = true
		}
	}
	for _, b := range ownFile.Body.(*hclsyntax.Body).Blocks {
		switch {
		case b.Type == "use" || b.Type == "override" || b.Type == "disable":
		case b.Type == "policy":
			ownPolicy = b
		case b.Type == "group" && baseGroups[b.Labels[0]]:
			e.ownGroups[b.Labels[0]] = append(e.ownGroups[b.Labels[0]], b.Body.Blocks...)
		default:
			ownTop = append(ownTop, b)
		}
	}
	for _, b := range ownFile.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "override" {
			e.overrides = append(e.overrides, b)
		}
	}

	fmt.Fprintf(&e.out, "# The effective policy of %s: built-in %s (%s)\n", c.File, c.Base, c.BaseFile)
	fmt.Fprintf(&e.out, "# with the params, additions, replacements and disabled rules of %s.\n", c.File)
	fmt.Fprintf(&e.out, "# Each part says where it comes from.\n\n")
	at := 0
	for _, b := range baseFile.Body.(*hclsyntax.Body).Blocks {
		rng := b.Range()
		e.out.Write(base[at:rng.Start.Byte])
		at = rng.End.Byte
		switch b.Type {
		case "policy":
			if ownPolicy != nil {
				e.note(Added, ownPolicy.Range(), "names the composed policy")
				e.text(own, ownPolicy.Range())
				continue
			}
			e.note(Inherited, rng, "")
			e.text(base, rng)
		case "param":
			e.param(b)
		case "group":
			e.group(b)
		default:
			e.note(Inherited, rng, "")
			e.text(base, rng)
		}
	}
	e.out.Write(base[at:])
	for _, b := range ownTop {
		e.out.WriteString("\n")
		e.note(Added, b.Range(), "")
		e.text(own, b.Range())
		e.out.WriteString("\n")
	}
	return hclfmt.Format(e.out.Bytes()), nil
}

type effective struct {
	p         *Policy
	c         *Composition
	base, own []byte
	ownGroups map[string][]*hclsyntax.Block
	overrides []*hclsyntax.Block
	out       bytes.Buffer
}

func (e *effective) text(src []byte, rng hcl.Range) { e.out.Write(src[rng.Start.Byte:rng.End.Byte]) }

// note writes the comment that says where the next part comes from.
func (e *effective) note(o Origin, rng hcl.Range, extra string) {
	var s string
	switch o {
	case Inherited:
		s = fmt.Sprintf("# inherited from %s", e.c.Base)
	case Added:
		s = fmt.Sprintf("# added by %s", short(rng))
	case Replaced:
		s = fmt.Sprintf("# replaced by %s", short(rng))
	}
	if extra != "" {
		s += ": " + extra
	}
	e.out.WriteString(s + "\n")
}

// param writes a built-in param with the value in force as its default.
func (e *effective) param(b *hclsyntax.Block) {
	rng := b.Range()
	x, ok := e.p.Param(b.Labels[0])
	if !ok || x.Origin == "default" || x.Value.IsNull() {
		e.note(Inherited, rng, "")
		e.text(e.base, rng)
		return
	}
	builtin := hclfmt.Value(x.Default)
	value := hclfmt.Value(x.Value)
	where := x.Origin
	if x.overrideRange != nil {
		where = short(*x.overrideRange)
	}
	e.out.WriteString(fmt.Sprintf("# inherited from %s; value set by %s (the built-in's default is %s)\n", e.c.Base, where, builtin))
	dr := x.DefaultRange
	e.out.Write(e.base[rng.Start.Byte:dr.Start.Byte])
	e.out.WriteString(value)
	e.out.Write(e.base[dr.End.Byte:rng.End.Byte])
}

// group writes a built-in group rule by rule: inherited, replaced in
// place or disabled, then the rules the file adds to it.
func (e *effective) group(b *hclsyntax.Block) {
	rng := b.Range()
	e.note(Inherited, b.DefRange(), "group")
	at := rng.Start.Byte
	for _, rb := range b.Body.Blocks {
		rr := rb.Range()
		e.out.Write(e.base[at:rr.Start.Byte])
		at = rr.End.Byte
		name := rb.Labels[0]
		if _, replaced := e.c.Replaced[name]; replaced {
			ob := e.override(name)
			e.note(Replaced, ob.Range(), fmt.Sprintf("the built-in's rule is at %s", short(rb.DefRange())))
			body := ob.Body.Range()
			fmt.Fprintf(&e.out, "rule %q ", name)
			e.text(e.own, body)
			continue
		}
		if dis := e.disabled(name); dis != nil {
			reason := ""
			if dis.Reason != "" {
				reason = ": " + dis.Reason
			}
			fmt.Fprintf(&e.out, "# rule %q (%s) disabled by %s%s\n", name, short(rb.DefRange()), short(dis.Range), reason)
			continue
		}
		e.note(Inherited, rr, "")
		e.text(e.base, rr)
	}
	closing := rng.End.Byte - 1 // the group's closing brace
	e.out.Write(e.base[at:closing])
	for _, rb := range e.ownGroups[b.Labels[0]] {
		e.out.WriteString("\n")
		e.note(Added, rb.Range(), "")
		e.text(e.own, rb.Range())
		e.out.WriteString("\n")
	}
	e.out.Write(e.base[closing:rng.End.Byte])
}

func (e *effective) override(name string) *hclsyntax.Block {
	for _, b := range e.overrides {
		if b.Labels[0] == name {
			return b
		}
	}
	return nil
}

func (e *effective) disabled(name string) *Disabled {
	for _, d := range e.c.Disabled {
		if d.Rule.Name == name {
			return d
		}
	}
	return nil
}
