package verify

import (
	"slices"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// A reader is a rule or a property condition on one event: the facts it
// reads, conjunct by conjunct. A guard `a && b && c` runs its conjuncts in
// order until one is false; a conjunct that reads the state only (and the
// host's window and clock) is known in each state before any event is
// tried. Where one is false, the conjuncts after it never run and the rule
// cannot fire: the facts only they (and the rule's assignments and effect
// arguments) read cannot change what happens, so the events from that
// state do not vary them. The conjuncts before it still run, with every
// value of their facts, and raise the errors they raise.
type reader struct {
	rule  bool          // a rule, which the engine runs; else a property's
	from  []rules.Match // a rule's from: outside it the rule is not tried
	parts []part
	tail  []string // read once every conjunct holds: a rule's sets and effects
}

type part struct {
	prog      *lang.Program
	facts     []string
	stateOnly bool // reads no fact but the window and the clock
}

// readersOf builds the readers of every event the model explores.
func (m *model) readersOf() {
	m.readers = make([][]reader, len(m.eventNames))
	m.hostEvents = make([]instance, len(m.eventNames))
	for k, name := range m.eventNames {
		def, _ := contract.LookupEvent(name)
		if in, err := instanceOf(def, map[string]any{"event": name}); err == nil {
			m.hostEvents[k] = in
		}
		plan := m.p.PlanFor(name)
		for _, pg := range plan.Groups {
			for _, cr := range pg.Rules {
				r := reader{rule: true, from: cr.From}
				if cr.When != nil {
					r.parts = m.partsOf(cr.When)
				}
				for _, src := range ruleSources(cr) {
					if cr.When != nil && src == cr.When.Source {
						continue
					}
					r.tail = append(r.tail, m.dom.an.info(src).facts...)
				}
				m.readers[k] = append(m.readers[k], r)
			}
		}
		for _, pr := range m.props {
			if pr.Always != nil {
				m.readers[k] = append(m.readers[k], reader{tail: m.dom.an.info(pr.Always.Source).facts})
			}
			for _, conds := range []map[string]*lang.Program{pr.When, pr.CycleEndsWhen, pr.InputWhen} {
				for on, w := range conds {
					if on == "" || on == name {
						m.readers[k] = append(m.readers[k], reader{parts: m.partsOf(w)})
					}
				}
			}
			// A scope's event markers read the event's facts too: a fact
			// only a marker reads must still take its values.
			for _, mk := range pr.ScopeMarkers() {
				if mk.Event == name && mk.When != nil {
					m.readers[k] = append(m.readers[k], reader{parts: m.partsOf(mk.When)})
				}
			}
		}
	}
}

func (m *model) partsOf(w *lang.Program) []part {
	progs := w.Parts
	if len(progs) == 0 {
		progs = []*lang.Program{w}
	}
	var out []part
	for _, p := range progs {
		facts := m.dom.an.info(p.Source).facts
		// A conjunct reading what a scope remembers (scope.NAME) is
		// evaluated on more than the slots: never state-only.
		only := p.B != nil && !slices.ContainsFunc(facts, func(f string) bool { return f != factWindow && f != factNow }) && !readsScope(p.Source)
		out = append(out, part{prog: p, facts: facts, stateOnly: only})
	}
	return out
}

// readFor lists the facts event k reads in node n: those of the readers
// that can still run there. Other facts cannot change what happens, so
// they keep their defaults. The first nRule, in contract order, are read
// by rules; the rest, in contract order too, by properties only: varying
// those changes no decision, only what the properties see of it.
func (m *model) readFor(k int, n *node) (read []string, nRule int) {
	const byRule, byProperty = 1, 2
	need := m.need
	clear(need)
	host := &m.hostEvents[k] // its window and clock are n's (events)
	for _, r := range m.readers[k] {
		if !fromHolds(r.from, n) {
			continue
		}
		bit := byte(byProperty)
		if r.rule {
			bit = byRule
		}
		stopped := false
		for _, p := range r.parts {
			if p.stateOnly && host.frame != nil {
				m.frame.BeginPacked(host.frame, n.vals, host.pack)
				if !p.prog.B(&m.frame) && m.frame.Err == nil {
					stopped = true
					break
				}
				continue
			}
			for _, f := range p.facts {
				need[f] |= bit
			}
		}
		if !stopped {
			for _, f := range r.tail {
				need[f] |= bit
			}
		}
	}
	// A turn_end's outcome, error kind and synthetic abort are sent only
	// in agreement (consistent): one varied brings the others, or a value
	// of one would find no event that carries it.
	for _, g := range coupled[m.eventNames[k]] {
		var bits byte
		for _, f := range g {
			bits |= need[f]
		}
		if bits != 0 {
			for _, f := range g {
				need[f] = bits
			}
		}
	}
	for _, f := range m.dom.read[m.eventNames[k]] {
		if need[f]&byRule != 0 {
			read = append(read, f)
		}
	}
	nRule = len(read)
	for _, f := range m.dom.read[m.eventNames[k]] {
		if need[f] == byProperty {
			read = append(read, f)
		}
	}
	return read, nRule
}

func fromHolds(from []rules.Match, n *node) bool {
	for _, fm := range from {
		if fm.Mask&(1<<uint(n.vals[fm.Slot.Index].Num)) == 0 {
			return false
		}
	}
	return true
}

// coupled are, per event, facts a host sends only in agreement
// (consistent), varied together.
var coupled = map[string][][]string{
	"turn_end":     {{"outcome", "error", "synthetic_abort"}},
	"summary_done": {{"ok", "aborted", "already_compact"}},
}
