package verify

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
)

// result gathers what the exploration found: the properties that hold,
// the findings, and the checks every policy gets.
func (m *model) result() *Result {
	r := &Result{Policy: m.p.Name, States: len(m.nodes), Transitions: m.transitions, Bounded: m.bounded, Incomplete: m.incomplete, Bound: m.bound, Warnings: m.warnings, HiddenWarnings: m.hiddenWarnings,
		Holds: []string{}, Findings: []Finding{}, ExactSlots: m.shape.exact}
	if m.incomplete {
		r.ExactSlots = m.growing()
	}
	if len(m.p.Params) > 0 {
		r.Params = map[string]any{}
		for _, x := range m.p.Params {
			t, v := rules.ParamValue(x.Value)
			r.Params[x.Name] = v.Interface(t)
		}
	}
	// A cut exploration has not seen every state: a rule it did not see
	// fire or a value it did not see held is a warning saying so, not a
	// claim that it never happens.
	notSeen := func(f Finding) {
		if m.bounded {
			f.Bounded = true
			f.Message += fmt.Sprintf(" — in the %d states explored only: the exploration was cut at %s", len(m.nodes), m.bound)
			r.Warnings = append(r.Warnings, f)
			return
		}
		r.Findings = append(r.Findings, f)
	}
	set := m.setParams()
	for _, pr := range m.props {
		if f, ok := m.found[pr.Name]; ok {
			f.Params = set
			r.Findings = append(r.Findings, *f)
		} else {
			r.Holds = append(r.Holds, pr.Name)
		}
	}
	if f, ok := m.found["runtime error"]; ok {
		f.Params = set
		r.Findings = append(r.Findings, *f)
	}
	var unfired, unreached []string
	if v := m.p.Verify; v != nil {
		unfired, unreached = v.Unfired, v.Unreached
	}
	var dead []*rules.Rule
	for _, rule := range m.p.Rules {
		if m.fired[rule.Name] {
			if slices.Contains(unfired, rule.Name) {
				r.Findings = append(r.Findings, Finding{Name: "unfired " + rule.Name, Kind: KindDeadRule, Message: "rule " + rule.Name + " is marked unfired in the verify block, yet it fires"})
			}
			continue
		}
		if slices.Contains(unfired, rule.Name) {
			r.Expected = append(r.Expected, "rule "+rule.Name+" never fires")
			continue
		}
		if m.bounded {
			notSeen(Finding{Name: "dead rule " + rule.Name, Kind: KindDeadRule, Message: "rule " + rule.Name + " was not seen firing"})
			continue
		}
		dead = append(dead, rule)
	}
	if len(dead) > 0 {
		shadow, complete := m.shadows(dead)
		for _, rule := range dead {
			r.Findings = append(r.Findings, Finding{Name: "dead rule " + rule.Name, Kind: KindDeadRule, Message: m.whyDead(rule, shadow[rule], complete)})
		}
	}
	for si, s := range m.p.Slots {
		if !s.IsEnum() {
			continue
		}
		for vi, v := range s.Enum {
			if m.reached[si][vi] {
				continue
			}
			name := s.Name + "." + v
			if slices.Contains(unreached, name) {
				r.Expected = append(r.Expected, "slot "+s.Name+" never holds "+v)
				continue
			}
			msg := fmt.Sprintf("no reachable state has %s = %q", s.Name, v)
			if m.bounded {
				msg = fmt.Sprintf("no state explored has %s = %q", s.Name, v)
			}
			notSeen(Finding{Name: "unreached " + name, Kind: KindUnreached, Message: msg})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.dom.how)) {
		if m.usedFact(name) {
			vals, ok := m.dom.values[name]
			if !ok {
				vals = m.dom.perEvent[name]
			}
			r.Sampling = append(r.Sampling, Sampling{Fact: name, How: m.dom.how[name], Values: vals})
		}
	}
	return r
}

func (m *model) usedFact(key string) bool {
	for _, ev := range m.eventNames {
		ev2, name, own := strings.Cut(key, ".")
		if own && ev2 != ev {
			continue
		}
		if !own {
			name = key
		}
		if slices.Contains(m.dom.read[ev], name) {
			return true
		}
	}
	return key == factWindow
}

// maxExplain bounds the decisions explained again to name the rules that
// shadow dead ones.
const maxExplain = 200000

// shadows names, for each dead rule, the earlier rules of its group that
// fire first where it would match, by asking the engine to explain the
// decisions of the states explored again — all dead rules in one pass,
// within maxExplain decisions and the time budget.
func (m *model) shadows(dead []*rules.Rule) (map[*rules.Rule]map[string]int, bool) {
	out := map[*rules.Rule]map[string]int{}
	on := map[string][]*rules.Rule{}
	byName := map[string]*rules.Rule{}
	for _, r := range dead {
		out[r] = map[string]int{}
		byName[r.Name] = r
		for _, e := range r.On {
			on[e] = append(on[e], r)
		}
	}
	explained := 0
	for i, n := range m.nodes {
		if i%64 == 0 && m.opts.Stop != nil && m.opts.Stop() {
			return out, false
		}
		win, now := m.hostValues(n)
		for _, set := range m.events(n) {
			if len(on[set.def.Name]) == 0 {
				continue
			}
			for vi := range set.ins {
				in := m.materialize(set, &set.ins[vi], win, now)
				if in == nil {
					continue
				}
				if explained++; explained > maxExplain {
					return out, false
				}
				m.sess.SetValues(n.vals)
				d, err := m.sess.DecideExplain(in.ev)
				if err != nil {
					continue
				}
				for _, c := range d.Explain {
					r := byName[c.Rule]
					if r == nil || !strings.HasPrefix(c.Reason, "not reached: ") {
						continue
					}
					by := strings.TrimPrefix(c.Reason, "not reached: ")
					by = by[:strings.IndexByte(by+" ", ' ')]
					if m.whenHolds(r, n, in) {
						out[r][by]++
					}
				}
			}
		}
	}
	return out, true
}

// whyDead says why a rule never fires: the earlier rules that shadow it,
// or a from and when that never hold together.
func (m *model) whyDead(rule *rules.Rule, shadow map[string]int, complete bool) string {
	if len(shadow) > 0 {
		names := slices.Sorted(maps.Keys(shadow))
		return fmt.Sprintf("rule %s never fires: where it would match, an earlier rule of group %s fires first (%s)", rule.Name, rule.Group.Name, strings.Join(names, ", "))
	}
	if !complete {
		return fmt.Sprintf("rule %s never fires in a reachable state (which earlier rule shadows it was not worked out: more than %d decisions to explain)", rule.Name, maxExplain)
	}
	return fmt.Sprintf("rule %s never fires: its from and when never hold together in a reachable state", rule.Name)
}

// whenHolds evaluates the rule's from and guard on the event in node n.
func (m *model) whenHolds(rule *rules.Rule, n *node, in *instance) bool {
	for _, pg := range m.p.PlanFor(in.ev.Name()).Groups {
		for _, cr := range pg.Rules {
			if cr.Rule == rule {
				return m.matchesAt(cr, n, in)
			}
		}
	}
	return false
}

// setParams are the params whose value in force is not the one the policy
// declares, as HCL values: what a counterexample's run block must set.
func (m *model) setParams() map[string]string {
	var out map[string]string
	for _, x := range m.p.Params {
		if x.Default == cty.NilVal || x.Value.RawEquals(x.Default) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[x.Name] = ctyLiteral(x.Value)
	}
	return out
}

// ctyLiteral writes a param's value as an HCL literal: a number, a string,
// a bool, or a list or tuple of them. (hclwrite would do it, but the
// binary that hosts start links no writer: TestBinaryLinksNoHclwrite.)
func ctyLiteral(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	t := v.Type()
	switch {
	case t == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case t == cty.String:
		return strconv.Quote(v.AsString())
	case t == cty.Bool:
		return strconv.FormatBool(v.True())
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		var parts []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			parts = append(parts, ctyLiteral(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return strconv.Quote(v.GoString())
}

// growing names the slots kept exact that were still taking new values
// when a bound cut the exploration: a value held at the deepest level
// explored that no shallower state held. Only those can be blamed for an
// exploration that does not end; an exact slot that stopped growing (a
// failure count at its limit) is not named.
func (m *model) growing() []string {
	deepest := 0
	for _, n := range m.nodes {
		deepest = max(deepest, n.depth)
	}
	var out []string
	for _, name := range m.shape.exact {
		si := slices.IndexFunc(m.p.Slots, func(s *rules.Slot) bool { return s.Name == name })
		if si < 0 {
			continue
		}
		before := map[string]bool{}
		for _, n := range m.nodes {
			if n.depth < deepest {
				before[valueKey(n.vals[si])] = true
			}
		}
		for _, n := range m.nodes {
			if n.depth == deepest && !before[valueKey(n.vals[si])] {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

func valueKey(v lang.Value) string {
	return fmt.Sprintf("%v|%q|%v", v.Num, v.Str, v.Bool)
}
