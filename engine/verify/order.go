package verify

import (
	"fmt"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// checkOrder warns when a later rule of the group of a rule that fired
// would have matched too and moves an enum slot the fired rule also moves,
// to another value: the outcome then rests on file order alone. Each pair
// is reported once, with the first state it was seen in.
func (m *model) checkOrder(i int, n *node, in instance, fired []string, st *step) {
	plan := m.p.PlanFor(in.ev.Name())
	for _, pg := range plan.Groups {
		winner := -1
		for ri, cr := range pg.Rules {
			if winner < 0 {
				for _, f := range fired {
					if f == cr.Rule.Name {
						winner = ri
					}
				}
				continue
			}
			w := pg.Rules[winner]
			slot, a, b, ok := conflict(w, cr)
			if !ok {
				continue
			}
			key := w.Rule.Name + "|" + cr.Rule.Name
			if m.orderSeen[key] || !m.matchesAt(cr, n, in) {
				continue
			}
			m.orderSeen[key] = true
			m.warnings = append(m.warnings, Finding{
				Name: "order " + w.Rule.Name + " before " + cr.Rule.Name,
				Kind: KindOrder,
				Message: fmt.Sprintf("rules %s and %s of group %s both match; %s moves %s to %q and %s would move it to %q: only file order decides",
					w.Rule.Name, cr.Rule.Name, pg.Group.Name, w.Rule.Name, slot, a, cr.Rule.Name, b),
				Trace: m.trace(append(m.path(i), st)),
			})
		}
	}
}

// conflict finds an enum slot both rules set, to different values.
func conflict(a, b *rules.CompiledRule) (string, string, string, bool) {
	for _, ta := range a.To {
		for _, tb := range b.To {
			if ta.Slot == tb.Slot && ta.Value.Num != tb.Value.Num {
				return ta.Slot.Name, ta.Slot.Enum[int(ta.Value.Num)], tb.Slot.Enum[int(tb.Value.Num)], true
			}
		}
	}
	return "", "", "", false
}

// matchesAt evaluates a rule's from and guard on the event in node n.
func (m *model) matchesAt(cr *rules.CompiledRule, n *node, in instance) bool {
	for _, fm := range cr.From {
		if fm.Mask&(1<<uint(n.vals[fm.Slot.Index].Num)) == 0 {
			return false
		}
	}
	if cr.When == nil {
		return true
	}
	f := lang.NewFrame(in.frame, n.vals)
	return cr.When.B(&f) && f.Err == nil
}
