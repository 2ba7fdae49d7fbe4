package rules

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

// CompileOnUse leaves the rules of each event to be compiled when the
// event first needs them (CompilePlan), for a built-in loaded from the
// syntax tree made at build time, at its own defaults, to decide with
// (WithoutProperties): the policy the build compiled whole, with no
// diagnostic at all, in this package's tests and the built-ins' own (a
// warning of a rule's would otherwise go unreported). Any other load
// ignores it and compiles every plan, so that a mistake in a file is
// reported when it loads. The process Pi starts at every session loads
// so: an event kind a session never sees costs it nothing, and
// initialize, which reads no rule, waits for none (docs/performance.md,
// Start-up). Nor is a group block read from the tree before then: the
// policy's Groups and Rules are empty until the first CompilePlan (or
// CompilePlans) reads them all. The policy's plans are then read through
// CompilePlan, as the engine and verify read them, and a reader of its
// rules calls CompilePlans first.
func CompileOnUse() Option {
	return func(o *options) { o.compileOnUse = true }
}

// laterPlans is the compilation a policy loaded CompileOnUse keeps for
// the plans it has not compiled yet.
type laterPlans struct {
	mu   sync.Mutex
	c    *compileCtx
	done []atomic.Bool // per plan: compiled, and errs[i] set
	errs []error
	// groups is the source whose group blocks the load left in its tree,
	// until readGroups has read them; groupsErr is what that read found.
	groups    Source
	groupsErr error
}

// CompilePlan compiles the rules of the i-th plan (contract.Events
// order) if the policy was loaded CompileOnUse and they are not compiled
// yet; it is safe to call from several goroutines, and the plan's Groups
// are complete once it returns nil. For any other policy it does
// nothing. The error, which a built-in the build compiled cannot have,
// is the plan's diagnostics, returned again by every later call; an index
// out of range is an error too.
func (p *Policy) CompilePlan(i int) error {
	if i < 0 || i >= len(p.Plans) {
		return fmt.Errorf("policy %s has no plan %d (%d plans)", p.Name, i, len(p.Plans))
	}
	l := p.later
	if l == nil {
		return nil
	}
	if l.done[i].Load() {
		return l.errs[i]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done[i].Load() {
		return l.errs[i]
	}
	if err := p.readGroups(); err != nil {
		l.errs[i] = err
		l.done[i].Store(true)
		return err
	}
	c := l.c
	before := len(c.diags)
	c.plan(i, p.Plans[i])
	if d := c.diags[before:]; d.HasErrors() {
		p.Plans[i].Groups = nil
		l.errs[i] = fmt.Errorf("the rules of event %s: %s", p.Plans[i].Event.Name, FormatDiagnostics(p.Sources, hcl.Diagnostics(d)))
	}
	l.done[i].Store(true)
	return l.errs[i]
}

// CompilesOnUse reports whether the policy was loaded CompileOnUse and
// leaves plans to CompilePlan.
func (p *Policy) CompilesOnUse() bool { return p.later != nil }

// CompilePlans compiles every plan CompilePlan has not, for a reader of
// the whole policy (verify, graph); it returns the first plan's error.
func (p *Policy) CompilePlans() error {
	if p.later == nil {
		return nil
	}
	for i := range p.Plans {
		if err := p.CompilePlan(i); err != nil {
			return err
		}
	}
	return nil
}

// allButGroups are the top-level blocks readGroups leaves out.
var allButGroups = func() []string {
	var out []string
	for _, b := range policySchema.Blocks {
		if b.Type != "group" {
			out = append(out, b.Type)
		}
	}
	return out
}()

// readGroups reads the group blocks the load left in the tree, once, and
// checks the events their rules name, as a load that reads them at once
// does. It is called with l.mu held.
func (p *Policy) readGroups() error {
	l := p.later
	src := l.groups
	if src.Tree == nil {
		return l.groupsErr
	}
	l.groups = Source{}
	decode := hcltree.Decode
	if src.Static {
		decode = hcltree.DecodeStatic
	}
	file, err := decode(src.Tree, src.Bytes, src.Name, allButGroups...)
	if err != nil {
		l.groupsErr = fmt.Errorf("the groups of %s: %v", src.Name, err)
		return l.groupsErr
	}
	content, diags := bodyContent(file.Body, policySchema)
	if !diags.HasErrors() {
		diags = append(diags, p.decodeBlocks(content.Blocks, newDecls(), false)...)
	}
	before := len(l.c.diags)
	l.c.ruleEvents(p.Rules)
	diags = append(diags, l.c.diags[before:]...)
	if diags.HasErrors() {
		p.Groups, p.Rules = nil, nil
		l.groupsErr = fmt.Errorf("the groups of %s: %s", src.Name, FormatDiagnostics(p.Sources, diags))
	}
	return l.groupsErr
}
