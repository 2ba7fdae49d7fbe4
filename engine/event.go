package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Event is a validated lifecycle event with every fact filled in.
type Event struct {
	def   *contract.Event
	kind  int
	facts []lang.Value
	// packed holds the bool facts as bits and the enum facts as codes
	// (lang.Pack), so guards on them read the event value instead of its
	// facts' memory: with 10k events, touching facts is a cache miss.
	packed lang.Packed
}

// newEvent is the way an Event is made from checked facts (the builder
// keeps its packed word as it goes: EventBuilder.Event).
func newEvent(def *contract.Event, kind int, facts []lang.Value) Event {
	return Event{def: def, kind: kind, facts: facts, packed: lang.Pack(facts)}
}

// Name is the event's name.
func (e Event) Name() string {
	if e.def == nil {
		return ""
	}
	return e.def.Name
}

// Fact returns a fact's value as bool, float64, string or map[string]any.
func (e Event) Fact(name string) (any, bool) {
	if e.def == nil {
		return nil, false
	}
	for i, f := range allFacts[e.kind] {
		if f.Name == name {
			return e.facts[i].Interface(rules.LangType(f.Type)), true
		}
	}
	return nil, false
}

// allFacts holds each event's facts, common ones first, by event kind.
var allFacts = func() [][]contract.Fact {
	out := make([][]contract.Fact, len(contract.Events))
	for i := range contract.Events {
		out[i] = contract.Events[i].AllFacts()
	}
	return out
}()

var kinds = func() map[string]int {
	m := map[string]int{}
	for i, e := range contract.Events {
		m[e.Name] = i
	}
	return m
}()

// ParseEvent reads one event as the host sends it: a flat JSON object with
// "event" and facts. Omitted facts take the contract's defaults; an unknown
// event or fact, a fact of the wrong type or a bad fact (checkFact) is an
// error. For a stream of events, a Decoder is faster and allocates nothing.
func ParseEvent(line []byte) (Event, error) {
	var d Decoder
	ev, err := d.Decode(line)
	if err != nil {
		return Event{}, err
	}
	return ev.Clone(), nil
}

// Clone returns a copy of the event that a Decoder's next Decode does not
// overwrite.
func (e Event) Clone() Event {
	e.facts = slices.Clone(e.facts)
	return e
}

// NewEvent validates an event given as a map (as decoded from JSON; numbers
// may be json.Number, float64, int or int64), as Decoder does one read from
// JSON.
func NewEvent(m map[string]any) (Event, error) {
	raw, ok := m["event"]
	if !ok {
		return Event{}, fmt.Errorf(`missing "event": every event names itself, as {"event": "turn_end", …}`)
	}
	name, ok := raw.(string)
	if !ok {
		return Event{}, fmt.Errorf(`"event" must be a string`)
	}
	kind, ok := kinds[name]
	if !ok {
		return Event{}, fmt.Errorf("unknown event %q%s (events: %s)", name, lang.Suggest(name, contract.EventNames()), strings.Join(contract.EventNames(), ", "))
	}
	def := &contract.Events[kind]
	all := allFacts[kind]
	facts := make([]lang.Value, len(all))
	known := 1 // "event"
	// Facts in contract order, so the first problem reported is always the
	// same one.
	for i, f := range all {
		x, ok := m[f.Name]
		if !ok {
			facts[i] = defaultValue(f)
			continue
		}
		known++
		v, err := factValue(f, x)
		if err != nil {
			return Event{}, fmt.Errorf("event %s: fact %q %v", name, f.Name, err)
		}
		if err := checkFact(def, &all[i], v); err != nil {
			return Event{}, err
		}
		facts[i] = v
	}
	if known != len(m) {
		var unknown []string
		for k := range m {
			if k != "event" && !slices.ContainsFunc(all, func(f contract.Fact) bool { return f.Name == k }) {
				unknown = append(unknown, k)
			}
		}
		slices.Sort(unknown)
		names := make([]string, len(all))
		for j, f := range all {
			names[j] = f.Name
		}
		return Event{}, fmt.Errorf("event %s has no fact %q%s (facts: %s)", name, unknown[0], lang.Suggest(unknown[0], names), strings.Join(names, ", "))
	}
	return newEvent(def, kind, facts), nil
}

func defaultValue(f contract.Fact) lang.Value {
	switch d := f.Default.(type) {
	case bool:
		return lang.Value{Bool: d}
	case int64:
		return lang.Value{Num: float64(d)}
	case string:
		if len(f.Enum) > 0 {
			v, _ := lang.EnumValue(f.Enum, d)
			return v
		}
		return lang.Value{Str: d}
	}
	return lang.Value{}
}

func factValue(f contract.Fact, x any) (lang.Value, error) {
	switch f.Type {
	case contract.Bool:
		if b, ok := x.(bool); ok {
			return lang.Value{Bool: b}, nil
		}
	case contract.Int:
		var n float64
		switch v := x.(type) {
		case json.Number:
			fl, err := strconv.ParseFloat(string(v), 64)
			if err != nil && !math.IsInf(fl, 0) { // 1e999 is reported by checkFact
				return lang.Value{}, fmt.Errorf("must be an int, not %s", v)
			}
			n = fl
		case float64:
			n = v
		case int:
			n = float64(v)
		case int64:
			n = float64(v)
		default:
			return lang.Value{}, fmt.Errorf("must be an int, not %s", describe(x))
		}
		return lang.Value{Num: n}, nil
	case contract.String:
		if s, ok := x.(string); ok {
			if len(f.Enum) > 0 {
				v, ok := lang.EnumValue(f.Enum, s)
				if !ok {
					return lang.Value{}, fmt.Errorf("is one of %s, not %q", strings.Join(f.Enum, ", "), s)
				}
				return v, nil
			}
			return lang.Value{Str: s}, nil
		}
	case contract.Object:
		switch o := x.(type) {
		case nil:
			return lang.Value{}, nil
		case map[string]any:
			return lang.Value{X: normalize(o).(map[string]any)}, nil
		}
	}
	return lang.Value{}, fmt.Errorf("must be %s, not %s", article(f.Type), describe(x))
}

// normalize turns json.Number into float64 inside objects.
func normalize(x any) any {
	switch v := x.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return x
}

func article(t contract.Type) string {
	switch t {
	case contract.Int:
		return "an int"
	case contract.Object:
		return "an object"
	}
	return "a " + t.String()
}

func describe(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("%v", v)
	case string:
		return fmt.Sprintf("%q", v)
	case json.Number:
		return v.String()
	case float64:
		return formatNum(v)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%v", x)
}

// Facts are the event's facts in contract order (the event's AllFacts), as
// expressions read them. The slice is the event's own: callers must not
// change it.
func (e Event) Facts() []lang.Value { return e.facts }
