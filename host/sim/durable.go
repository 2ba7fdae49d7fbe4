package sim

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/resetpolicy/resetpolicy/host/session"
)

// StateType is the custom entry that holds a policy's durable slots on the
// session branch (rules/README.md, "Durable state"); the Pi extension
// writes the same entry.
const StateType = "resetpolicy/state"

type stateData struct {
	Policy string         `json:"policy"`
	Slots  map[string]any `json:"slots"`
}

// durableSlots returns the policy's durable slot names, sorted.
func (h *host) durableSlots() []string {
	var out []string
	for _, sl := range h.pol.Slots {
		if sl.Durable {
			out = append(out, sl.Name)
		}
	}
	slices.Sort(out)
	return out
}

// persistDurable appends the durable slots to the branch when a decision
// changed one, as the Pi extension does.
func (h *host) persistDurable() {
	names := h.durableSlots()
	if len(names) == 0 {
		return
	}
	st := h.es.State()
	now := make(map[string]any, len(names))
	for _, n := range names {
		now[n] = st[n]
	}
	if maps.Equal(now, h.durable) {
		return
	}
	h.durable = now
	b, err := json.Marshal(stateData{Policy: h.pol.Name, Slots: now})
	if err != nil {
		return
	}
	h.add(h.sess.AppendCustom(StateType, b))
}

// restoreDurable sets the durable slots from the latest state entry of
// this policy on the current branch, or to their initial values; the
// other slots keep theirs.
func (h *host) restoreDurable() {
	names := h.durableSlots()
	h.durable = nil
	if len(names) == 0 {
		return
	}
	initial := h.eng.NewSession().State()
	vals := make(map[string]any, len(names))
	for _, n := range names {
		vals[n] = initial[n]
	}
	path := h.sess.Path()
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type() != session.TypeCustom || e.CustomType() != StateType {
			continue
		}
		var d stateData
		if json.Unmarshal(e.Field("data"), &d) != nil || d.Policy != h.pol.Name {
			continue
		}
		for _, n := range names {
			if v, ok := d.Slots[n]; ok {
				vals[n] = v
			}
		}
		break
	}
	if err := h.es.SetState(vals); err != nil {
		h.notef("durable state on the branch does not fit the policy: %v", err)
	}
	st := h.es.State()
	h.durable = make(map[string]any, len(names))
	for _, n := range names {
		h.durable[n] = st[n]
	}
}
