package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// EventBuilder builds events of one kind from Go values, without a JSON
// or map round trip: a host that already holds typed facts (a replay of
// recorded sessions, millions of events) resolves each fact's position
// once and sets values by position. Values are checked as ParseEvent
// checks them (enum members); an unknown fact name is an error when the
// position is looked up, not per event.
//
// A builder owns one fact buffer. Event returns an event that shares it,
// valid until the next Set or Reset: decide it before building the next.
type EventBuilder struct {
	def      *contract.Event
	kind     int
	facts    []lang.Value
	defaults []lang.Value
	// packed is lang.Pack of facts, kept as each fact is set, so Event
	// does not pack every fact again (defaultsPacked: of the defaults).
	packed, defaultsPacked lang.Packed
	// checked: the int and object facts, the ones checkFact can refuse,
	// in order; the setters of the others take only values their fact
	// may hold. Every setter stores a whole number in an int fact (an
	// int64, an enum index or 0), and one from the fact's least value to
	// 2^53 passes, which Event tests in place before calling checkFact
	// (calling it for every int fact of every event was 1.5% of a
	// replay).
	checked []checkedFact
}

// checkedFact is a fact Event checks: its position, and an int fact's
// least value.
type checkedFact struct {
	i      int
	least  float64
	object bool
}

// FactIndex is a fact's position in its event kind.
type FactIndex int

// NewEventBuilder returns a builder for the named event with every fact
// at its contract default.
func NewEventBuilder(name string) (*EventBuilder, error) {
	kind, ok := kinds[name]
	if !ok {
		return nil, fmt.Errorf("unknown event %q%s (events: %s)", name, lang.Suggest(name, contract.EventNames()), strings.Join(contract.EventNames(), ", "))
	}
	n := len(allFacts[kind])
	b := &EventBuilder{def: &contract.Events[kind], kind: kind, facts: make([]lang.Value, n), defaults: make([]lang.Value, n)}
	for i, f := range allFacts[kind] {
		b.defaults[i] = defaultValue(f)
		switch f.Type {
		case contract.Int:
			b.checked = append(b.checked, checkedFact{i: i, least: intMin(&allFacts[kind][i])})
		case contract.Object:
			b.checked = append(b.checked, checkedFact{i: i, object: true})
		}
	}
	b.defaultsPacked = lang.Pack(b.defaults)
	b.Reset()
	return b, nil
}

// Reset puts every fact back at its default.
func (b *EventBuilder) Reset() { copy(b.facts, b.defaults); b.packed = b.defaultsPacked }

// set stores fact i's value, and its bit and code in packed.
func (b *EventBuilder) set(i FactIndex, v lang.Value) {
	b.facts[i] = v
	b.packed.SetBit(int(i), v.Bool)
	b.packed.SetCode(int(i), v.Num)
}

// Index returns the position of a fact of this event and its type.
func (b *EventBuilder) Index(name string) (FactIndex, contract.Type, error) {
	for i, f := range allFacts[b.kind] {
		if f.Name == name {
			return FactIndex(i), f.Type, nil
		}
	}
	return 0, 0, fmt.Errorf("event %s has no fact %q", b.def.Name, name)
}

// MustIndex is Index for facts the caller knows from the contract; an
// unknown name is a programming error.
func (b *EventBuilder) MustIndex(name string, t contract.Type) FactIndex {
	i, got, err := b.Index(name)
	if err != nil {
		panic(err)
	}
	if got != t {
		panic(fmt.Sprintf("engine: fact %s.%s is %s, not %s", b.def.Name, name, got, t))
	}
	return i
}

// SetInt sets an int fact.
func (b *EventBuilder) SetInt(i FactIndex, n int64) { b.set(i, lang.Value{Num: float64(n)}) }

// SetBool sets a bool fact.
func (b *EventBuilder) SetBool(i FactIndex, v bool) { b.set(i, lang.Value{Bool: v}) }

// SetString sets a string fact; a value outside the fact's enum is an
// error and leaves the fact as it was.
func (b *EventBuilder) SetString(i FactIndex, s string) error {
	// The fact is read in place, and the value stored in the fact
	// itself, with the bit and code that set would set: a Value passed to
	// set, inlined or not, was built on the stack and copied, and the
	// copy's loads waited on the stores that had just built it (perf
	// annotate: a fifth of SetString's time on that load, and about a
	// seventh on copying the Fact).
	f := &allFacts[b.kind][i]
	code := 0
	if len(f.Enum) > 0 {
		code = slices.Index(f.Enum, s) // lang.EnumValue's index
		if code < 0 {
			return fmt.Errorf("event %s: fact %q is one of %s, not %q", b.def.Name, f.Name, strings.Join(f.Enum, ", "), s)
		}
	}
	b.facts[i] = lang.Value{Str: s, Num: float64(code)}
	b.packed.SetBit(int(i), false)
	b.packed.SetCode(int(i), float64(code))
	return nil
}

// SetObject sets an object fact (nil: the empty object). The map must
// hold only JSON-like values (bool, float64, string, []any, map[string]any).
func (b *EventBuilder) SetObject(i FactIndex, m map[string]any) { b.set(i, lang.Value{X: m}) }

// Event returns the event as built so far, after the same check of every
// fact that decoded events pass (checkFact): a negative token count, a
// window of 0 or a non-finite number is an error here too. It shares the
// builder's buffer, but its bool and enum facts are packed now (Event's
// packed word): set every fact first, and call Event again after a change.
func (b *EventBuilder) Event() (Event, error) {
	all := allFacts[b.kind]
	for _, c := range b.checked {
		v := &b.facts[c.i]
		if !c.object && v.Num >= c.least && v.Num <= 1<<53 {
			continue
		}
		if err := checkFact(b.def, &all[c.i], *v); err != nil {
			return Event{}, err
		}
	}
	return Event{def: b.def, kind: b.kind, facts: b.facts, packed: b.packed}, nil
}
