package engine

import (
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Engine is a policy prepared for running. It is immutable; sessions share
// it.
type Engine struct {
	policy  *rules.Policy
	plans   [][]group // per contract event, per group
	initial []lang.Value
}

type group struct {
	name  string
	rules []*rule
}

// rule is a compiled rule with the effects that need no evaluation built
// once, so emitting them costs nothing.
type rule struct {
	c       *rules.CompiledRule
	name    string
	effects []effect
}

type effect struct {
	c      *rules.CompiledEffect
	static Effect // set when c.Static
}

// New prepares a compiled policy for running.
func New(p *rules.Policy) *Engine {
	e := &Engine{policy: p}
	for _, s := range p.Slots {
		e.initial = append(e.initial, s.Initial)
	}
	for _, plan := range p.Plans {
		var groups []group
		for _, pg := range plan.Groups {
			g := group{name: pg.Group.Name}
			for _, cr := range pg.Rules {
				r := &rule{c: cr, name: cr.Rule.Name}
				for i := range cr.Effects {
					ce := &cr.Effects[i]
					ef := effect{c: ce}
					if ce.Static {
						ef.static = Effect{Name: ce.Name}
						for _, a := range ce.Args {
							ef.static.Args = append(ef.static.Args, Arg{Name: a.Name, Value: a.Prog.Const.Interface(a.Prog.Type)})
						}
					}
					r.effects = append(r.effects, ef)
				}
				g.rules = append(g.rules, r)
			}
			groups = append(groups, g)
		}
		e.plans = append(e.plans, groups)
	}
	return e
}

// Policy is the policy the engine runs.
func (e *Engine) Policy() *rules.Policy { return e.policy }

// NewSession starts a session in the policy's initial state.
func (e *Engine) NewSession() *Session {
	s := &Session{eng: e, state: make([]lang.Value, len(e.initial))}
	copy(s.state, e.initial)
	return s
}
