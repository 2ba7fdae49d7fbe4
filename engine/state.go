package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// State returns the state as slot name -> string, float64 or bool.
func (s *Session) State() map[string]any {
	out := make(map[string]any, len(s.state))
	for _, sl := range s.eng.policy.Slots {
		if sl.IsEnum() {
			out[sl.Name] = sl.Enum[int(s.state[sl.Index].Num)]
			continue
		}
		out[sl.Name] = s.state[sl.Index].Interface(sl.Type)
	}
	return out
}

// Snapshot returns the state as JSON.
func (s *Session) Snapshot() []byte { return s.AppendStateJSON(nil) }

// Reset returns the session to the policy's initial state.
func (s *Session) Reset() { copy(s.state, s.eng.initial); s.written++ }

// SetState sets the slots given, validating every one first: an unknown
// slot, a value of the wrong type or outside an enum is an error and
// nothing changes.
func (s *Session) SetState(m map[string]any) error {
	next := slices.Clone(s.state)
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		sl, ok := s.eng.policy.Slot(name)
		if !ok {
			var all []string
			for _, x := range s.eng.policy.Slots {
				all = append(all, x.Name)
			}
			return fmt.Errorf("policy %s has no slot %q (slots: %s)", s.eng.policy.Name, name, strings.Join(all, ", "))
		}
		x := m[name]
		if n, ok := x.(json.Number); ok {
			f, err := n.Float64()
			if err != nil {
				return fmt.Errorf("slot %q: %v", name, err)
			}
			x = f
		}
		v, ok := lang.FromInterface(sl.Type, x)
		if !ok {
			return fmt.Errorf("slot %q holds %s, not %v", name, sl.Type, x)
		}
		if sl.IsEnum() {
			if v, ok = lang.EnumValue(sl.Enum, v.Str); !ok {
				return fmt.Errorf("%q is not a value of slot %q (%s)", v.Str, name, strings.Join(sl.Enum, ", "))
			}
		}
		next[sl.Index] = v
	}
	copy(s.state, next)
	s.written++
	return nil
}

// Restore starts from a snapshot: a JSON object of slots (others take
// their initial values), a line of `eval` output or of the decision log, or
// the server's snapshot result, whose "state" is used. On error the state
// is unchanged.
func (s *Session) Restore(snapshot []byte) error {
	_, err := s.RestoreReport(snapshot)
	return err
}

// RestoreReport is Restore, and also names the slots the snapshot left
// out, which took their initial values, in declaration order.
func (s *Session) RestoreReport(snapshot []byte) (reset []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(snapshot))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("snapshot is not a JSON object: %v", err)
	}
	// A line of eval output or of the decision log has the state under
	// "state" beside its "event"; so has the result of the server's
	// snapshot, alone. Unwrap them unless "state" is a slot of the policy.
	if st, ok := m["state"].(map[string]any); ok {
		_, isLine := m["event"]
		_, isSlot := s.eng.policy.Slot("state")
		if isLine || len(m) == 1 && !isSlot {
			m = st
		}
	}
	saved := slices.Clone(s.state)
	s.Reset()
	if err := s.SetState(m); err != nil {
		copy(s.state, saved)
		return nil, err
	}
	reset = []string{}
	for _, sl := range s.eng.policy.Slots {
		if _, ok := m[sl.Name]; !ok {
			reset = append(reset, sl.Name)
		}
	}
	return reset, nil
}

// DerivedValue is one of the policy's derived values for an event.
type DerivedValue struct {
	Name string
	// Value is a bool, a float64 or a string.
	Value any
}

// Derived evaluates the policy's derived values for ev against the current
// state, as the rules' guards would see them if ev were decided now. It
// changes nothing. A value that cannot be computed is left out.
func (s *Session) Derived(ev Event) []DerivedValue {
	if ev.def == nil {
		return nil
	}
	f := lang.Frame{Memo: make([]lang.Memo, len(s.eng.policy.Derived))}
	f.BeginPacked(ev.facts, s.state, ev.packed)
	var out []DerivedValue
	for _, d := range s.eng.policy.Derived {
		if d.Prog == nil {
			continue
		}
		f.Err = nil // a value that failed is left out; the others still count
		v := d.Prog.Eval(&f)
		if f.Err != nil {
			continue
		}
		out = append(out, DerivedValue{Name: d.Name, Value: v.Interface(d.Prog.Type)})
	}
	return out
}
