package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Session is one agent session's state under a policy. It is not safe for
// concurrent use; give each session its own.
type Session struct {
	eng   *Engine
	state []lang.Value
	// written counts the changes to state, so that a LineCache can tell
	// that none happened since it last wrote it: every write to state
	// after NewSession counts one.
	written uint64
	// writes are the slot assignments of the event being decided, applied
	// only when the whole event succeeds: every expression reads the state
	// before the event, and a rejected event changes nothing.
	writes []write
	fired  []firing
	frame  lang.Frame
	// decision is the one every Decide returns, and its Rules and Effects
	// are the buffers the event's rules and effects are appended to, so
	// that nothing is copied into it at the end (that and emptying
	// separate buffers were a seventh of Decide's instructions).
	//
	// While effectsShared, decision.Effects are the statics of the one
	// rule that fired (the common case, and no copy: copying effects,
	// which hold pointers, was a sixteenth of Decide's instructions); any
	// other effect first copies them into effectsBuf, the session's own
	// buffer, and appends there. Each event starts from effectsBuf emptied.
	decision      Decision
	effectsBuf    []Effect
	effectsShared bool
}

// Decide evaluates one event. The decision, and its slices, belong to the
// session and are reused by the next Decide (no copy is made); Clone it to
// keep it. They are read-only: an effect the policy fixes, and the slice
// of them, can be the policy's own. On error the state is unchanged and
// the decision is nil.
func (s *Session) Decide(ev Event) (*Decision, error) {
	return s.decide(&ev, nil)
}

// DecideExplain is Decide with an explanation of every rule considered.
func (s *Session) DecideExplain(ev Event) (*Decision, error) {
	ex := []Consideration{}
	return s.decide(&ev, &ex)
}

func (s *Session) decide(ev *Event, explain *[]Consideration) (*Decision, error) {
	if ev.def == nil {
		return nil, fmt.Errorf("empty event: build events with ParseEvent or NewEvent")
	}
	s.frame.BeginPacked(ev.facts, s.state, ev.packed)
	s.begin()
	d := &s.decision
	var err error
	if explain == nil {
		if d.Explain != nil {
			d.Explain = nil
		}
		// A plan with a state table runs it from here, one call less.
		if pl := &s.eng.plans[ev.kind]; pl.built.Load() && pl.table != nil {
			err = s.runSteps(ev, pl.table[pl.key(s.state)])
		} else {
			err = s.run(ev)
		}
	} else {
		err = s.runExplained(ev, explain)
		d.Explain = *explain
	}
	if err != nil {
		s.begin()
		d.Explain = nil
		return nil, err
	}
	s.apply()
	d.Event = ev.def.Name
	return d, nil
}

// begin empties the buffers of a decision. Each is emptied in place, which
// stores its length only.
func (s *Session) begin() {
	d := &s.decision
	d.Rules = d.Rules[:0]
	if s.effectsShared {
		d.Effects, s.effectsShared = s.effectsBuf[:0], false
	} else {
		d.Effects = d.Effects[:0]
	}
	s.writes = s.writes[:0]
	s.fired = s.fired[:0]
}

// runExplained decides as run does, without the state index, recording
// for every rule of every group why it fired or did not.
func (s *Session) runExplained(ev *Event, explain *[]Consideration) error {
	f := &s.frame
	note := func(g *group, r *rule, fired bool, reason string) {
		*explain = append(*explain, Consideration{Group: g.name, Rule: r.name, Fired: fired, Reason: reason})
	}
	pl := &s.eng.plans[ev.kind]
	if !pl.built.Load() {
		if err := s.eng.buildOnUse(ev.kind); err != nil {
			return err
		}
	}
	plan := pl.groups
	for gi := range plan {
		g := &plan[gi]
		fired := ""
		for _, r := range g.rules {
			switch {
			case fired != "":
				note(g, r, false, "not reached: "+fired+" fired first in group "+g.name)
				continue
			case !s.from(r):
				note(g, r, false, s.fromReason(r))
				continue
			}
			if w := r.c.When; w != nil && !w.B(f) {
				if f.Err != nil {
					return s.fail(ev, r, f.Err)
				}
				note(g, r, false, whenReason(w, f))
				continue
			}
			if err := s.fire(r); err != nil {
				return s.fail(ev, r, err)
			}
			fired = r.name
			note(g, r, true, "")
		}
	}
	return nil
}

// run is the common path: per group, the rules of the bucket the
// dispatched fact picks that the state index allows; first match wins.
func (s *Session) run(ev *Event) error {
	f, state := &s.frame, s.state
	pl := &s.eng.plans[ev.kind]
	if !pl.built.Load() {
		if err := s.eng.buildOnUse(ev.kind); err != nil {
			return err
		}
	}
	if t := pl.table; t != nil {
		return s.runSteps(ev, t[pl.key(state)])
	}
	// A plan too large to tabulate: each bucket's own state index.
	plan := pl.groups
	for gi := range plan {
		g := &plan[gi]
		b := &g.buckets[0]
		if x := g.lit; x != nil {
			if x.codes {
				b = &g.buckets[x.byCode[ev.packed.Codes>>uint(4*x.fact)&15]]
			} else {
				b = &g.buckets[x.find(ev)]
			}
		}
		cands := b.rules
		if b.byState != nil {
			// The first key's stride is 1 (index), and most buckets
			// have one key: no multiply and no loop for them.
			key := int(state[b.key0].Num)
			for _, k := range b.keys {
				key += int(state[k.slot].Num) * k.stride
			}
			cands = b.byState[key]
		}
		if b.pre != nil && len(cands) > 0 {
			if b.hasPreBits {
				if f.Bits&b.preBits.Mask != b.preBits.Want {
					continue
				}
			} else if !b.pre(f) {
				if f.Err != nil {
					return s.fail(ev, cands[0], f.Err)
				}
				continue
			}
		}
		for _, r := range cands {
			if b.byState == nil && !s.from(r) {
				continue
			}
			// A mask test cannot fail, so it needs no error check.
			if r.hasBits {
				if f.Bits&r.bits.Mask != r.bits.Want {
					continue
				}
			} else if w := r.when; w != nil && !w(f) {
				if f.Err != nil {
					return s.fail(ev, r, f.Err)
				}
				continue
			}
			if err := s.fire(r); err != nil {
				return s.fail(ev, r, err)
			}
			break
		}
	}
	return nil
}

func (s *Session) fail(ev *Event, r *rule, err error) error {
	return fmt.Errorf("event %s, rule %s: %v (the state is unchanged)", ev.def.Name, r.name, err)
}

func (s *Session) from(r *rule) bool {
	for _, m := range r.from {
		if m.mask&(1<<uint(s.state[m.slot].Num)) == 0 {
			return false
		}
	}
	return true
}

func (s *Session) fromReason(r *rule) string {
	for _, m := range r.c.From {
		v := m.Slot.Enum[int(s.state[m.Slot.Index].Num)]
		if !slices.Contains(m.Values, v) {
			return fmt.Sprintf("from: %s is %q, not %s", m.Slot.Name, v, strings.Join(quote(m.Values), " or "))
		}
	}
	return "from"
}

func quote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// whenReason names the first conjunct of the guard that was false, with
// the values it compared (explain.go).
func whenReason(w *lang.Program, f *lang.Frame) string {
	for _, p := range w.Parts {
		if !p.B(f) {
			return "when: " + withValues(p, f) + " is false"
		}
	}
	return "when: " + withValues(w, f) + " is false"
}

// write is one pending assignment of a set (32 bytes).
type write struct {
	slot int32
	typ  lang.Type
	b    bool
	num  float64
	str  string
}

// firing is a rule that fired in the event being decided: its fixed
// writes are the rule's, the others writes[sets:sets+len(r.sets)].
type firing struct {
	r    *rule
	sets int
}

// fire records a rule's assignments (evaluated against the state before
// the event) and emits its effects; its fixed writes are the rule's own
// and are applied from it.
func (s *Session) fire(r *rule) error {
	f := &s.frame
	s.fired = append(s.fired, firing{r: r, sets: len(s.writes)})
	for i := range r.sets {
		a := &r.sets[i]
		w := write{slot: a.slot, typ: a.typ}
		switch p := a.prog; {
		case p.N != nil:
			w.num = p.N(f)
			if math.IsNaN(w.num) || math.IsInf(w.num, 0) {
				return fmt.Errorf("set %s = %s: the value is %v; a slot holds finite numbers only", a.name, p.Source, w.num)
			}
		case p.S != nil:
			w.str = p.S(f)
		case p.B != nil:
			w.b = p.B(f)
		}
		s.writes = append(s.writes, w)
	}
	d := &s.decision
	if r.statics != nil && len(d.Effects) == 0 {
		d.Effects, s.effectsShared = r.statics, true
	} else if r.statics != nil {
		s.ownEffects()
		d.Effects = append(d.Effects, r.statics...)
		s.effectsBuf = d.Effects
	} else {
		s.ownEffects()
		for i := range r.effects {
			ef := &r.effects[i]
			if ef.c.Static {
				d.Effects = append(d.Effects, ef.static)
				continue
			}
			out := Effect{Name: ef.c.Name, Args: make([]Arg, len(ef.c.Args))}
			for j, a := range ef.c.Args {
				out.Args[j] = Arg{Name: a.Name, Value: a.Prog.Eval(f).Interface(a.Prog.Type)}
			}
			d.Effects = append(d.Effects, out)
		}
		s.effectsBuf = d.Effects
	}
	if f.Err != nil {
		return f.Err
	}
	d.Rules = append(d.Rules, r.name)
	return nil
}

// ownEffects makes the event's effects the session's own, copying a
// rule's statics they share.
func (s *Session) ownEffects() {
	if d := &s.decision; s.effectsShared {
		s.effectsBuf = append(s.effectsBuf[:0], d.Effects...)
		d.Effects, s.effectsShared = s.effectsBuf, false
	}
}

// apply commits the fired rules' targets and assignments in order; a
// later write to a slot wins. An enum slot keeps only its index: its
// string is the policy's.
func (s *Session) apply() {
	if len(s.fired) > 0 {
		s.written++
	}
	for _, fr := range s.fired {
		for _, t := range fr.r.nums {
			s.state[t.slot].Num = t.num
		}
		if len(fr.r.fixed) > 0 {
			s.write(fr.r.fixed)
		}
		if n := len(fr.r.sets); n > 0 {
			s.write(s.writes[fr.sets : fr.sets+n])
		}
	}
}

// write stores writes in the state, in order.
func (s *Session) write(writes []write) {
	for i := range writes {
		w := &writes[i]
		v := &s.state[w.slot]
		switch w.typ {
		case lang.Int, lang.Float:
			v.Num = w.num
		case lang.String:
			v.Str = w.str
		case lang.Bool:
			v.Bool = w.b
		}
	}
}
