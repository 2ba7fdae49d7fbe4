package verify

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// node is one explored state: the policy's slots, what the host model
// holds (its window and clock), and the counters of at_most properties.
type node struct {
	vals   []lang.Value
	window int   // the host's window is "w<window>"
	now    int64 // the host clock
	counts []int // per property; used by at_most
	// hist is what open scopes remember (scope.go), echo the attempts
	// the host was given to echo (host.go).
	hist   []lang.Value
	echo   echoes
	parent int   // -1 for the initial node
	via    *step // how the parent reached it
	depth  int
}

// step is one transition: an event, or the clock moving.
type step struct {
	// set and vi name the event instance (nil: the clock moved to now);
	// facts builds it as a host sends it.
	set    *eventSet
	vi     []uint32
	now    int64
	failed bool // the host could not carry out the reset it was asked for
	// delta is how far a clock move went; newWindow marks a step after
	// which the host is in a new window; idBase is the newest id the
	// state held. With them a trace is rebuilt consistently (concrete).
	delta     int64
	newWindow bool
	idBase    float64
	rules     []string
	// effects of the decision, for the report
	effects []engine.Effect
}

// slotKind says how a slot enters the state key.
type slotKind int

const (
	kindExact   slotKind = iota
	kindWindow           // a string slot: window ids are renamed
	kindCounter          // an int grown from state and compared by order: clamped
	kindID               // an int grown from state and compared for equality: relative to the newest
	kindTime             // a time slot: relative to the clock
)

type shape struct {
	kinds []slotKind
	caps  []float64 // per counter slot
	// exact names the slots grown from their own or another slot's value
	// that stay exact: their values may have no end.
	exact []string
}

// isWindowID reports a window id as the engine makes them: w and a
// number (what `^w[0-9]+$` matches, without a regular expression compiled
// at every start of the binary).
func isWindowID(s string) bool {
	if len(s) < 2 || s[0] != 'w' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isTimeSlot: a slot declared `type = time` (held as an int) or assigned
// from the clock.
func isTimeSlot(p *rules.Policy, s *rules.Slot) bool {
	if s.Type != lang.Int {
		return false
	}
	if s.Time {
		return true
	}
	for _, plan := range p.Plans {
		for _, pg := range plan.Groups {
			for _, cr := range pg.Rules {
				for _, a := range cr.Set {
					if a.Slot == s && strings.Contains(a.Prog.Source, "event.now_ms") {
						return true
					}
				}
			}
		}
	}
	return false
}

// key is the abstract state: two nodes with equal keys have the same
// future under the policy and the host model. It is written into buf.
func (m *model) key(buf []byte, n *node) []byte {
	b := buf[:0]
	win := "w" + strconv.Itoa(n.window)
	var old []string // window ids renamed, in order met
	maxID := 0.0
	for i, k := range m.shape.kinds {
		if k == kindID {
			maxID = max(maxID, n.vals[i].Num)
		}
	}
	for i, s := range m.p.Slots {
		v := n.vals[i]
		switch m.shape.kinds[i] {
		case kindExact:
			switch {
			case s.IsEnum() || s.Type.Numeric():
				b = appendNum(b, v.Num)
			case s.Type == lang.Bool:
				b = strconv.AppendBool(b, v.Bool)
			default:
				b = strconv.AppendQuote(b, v.Str)
			}
		case kindWindow:
			switch {
			case v.Str == win:
				b = append(b, 'W')
			case isWindowID(v.Str):
				r := slices.Index(old, v.Str)
				if r < 0 {
					r = len(old)
					old = append(old, v.Str)
				}
				b = strconv.AppendInt(append(b, 'O'), int64(r+1), 10)
			default:
				b = strconv.AppendQuote(b, v.Str)
			}
		case kindCounter:
			b = appendNum(b, math.Min(v.Num, m.shape.caps[i]))
		case kindID:
			if v.Num == 0 {
				b = append(b, '0')
			} else {
				b = appendNum(append(b, 'i'), math.Max(v.Num-maxID, -3))
			}
		case kindTime:
			// Every deadline already passed is the same; a future one
			// counts from now.
			b = appendNum(append(b, 't'), math.Max(v.Num-float64(n.now), 0))
		}
		b = append(b, '|')
	}
	for pi, c := range n.counts {
		if m.layout[pi].timed {
			c = m.scopeState(pi, n)
		}
		b = append(strconv.AppendInt(b, int64(c), 10), ',')
	}
	b = m.histKey(b, n, maxID)
	return n.echo.key(b, maxID)
}

// appendNum appends x as lang.FormatNum writes it, without a string for
// the whole numbers slots hold.
func appendNum(b []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, lang.FormatNum(x)...)
}

func (m *model) maxID(n *node) float64 {
	hi := 0.0
	for i, k := range m.shape.kinds {
		if k == kindID {
			hi = max(hi, n.vals[i].Num)
		}
	}
	return hi
}

// ids returns the id values the state holds, with one before the oldest
// and one after the newest: a stale answer and a future one.
func (m *model) ids(n *node) []any {
	set := map[float64]bool{}
	hi := 0.0
	for i, k := range m.shape.kinds {
		if k == kindID && n.vals[i].Num > 0 {
			set[n.vals[i].Num] = true
			hi = max(hi, n.vals[i].Num)
		}
	}
	set[hi+1] = true
	if hi > 1 {
		set[hi-1] = true
	}
	var out []float64
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return toAny(out)
}

// deadlines are the clock values the host may move to from n: one ms
// before and at each future deadline a time slot holds.
func (m *model) deadlines(n *node) []int64 {
	var out []int64
	for i, k := range m.shape.kinds {
		if k != kindTime {
			continue
		}
		t := int64(n.vals[i].Num)
		if t > n.now {
			if t-1 > n.now {
				out = append(out, t-1)
			}
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// events builds every event the host may send from n: per event kind the
// policy handles, the product of the domains of the facts it reads. The
// instances of one kind are cached by what they depend on — the facts
// read, their moving thresholds and, when an id fact is read, the ids the
// state holds — so states that differ elsewhere share them. The window
// and the clock are the host's: they are written into the cached frames
// for n (window_id and now_ms come first in every event's facts), so
// states at other times and in other windows share the instances too.
func (m *model) events(n *node) []*eventSet {
	var ids []any
	out := make([]*eventSet, 0, len(m.eventNames))
	win, now := m.hostValues(n)
	for k, name := range m.eventNames {
		if host := &m.hostEvents[k]; host.frame != nil {
			host.frame[winAt], host.frame[nowAt] = win, now
		}
		read, nRule := m.readFor(k, n)
		// An event that echoes an effect's attempt takes the attempts the
		// host was given (host.go); another id fact, the state's ids.
		evIDs, echoing := n.echo.ids(name, m.bare)
		var key strings.Builder
		key.WriteString(name)
		key.WriteByte('|')
		for fi, f := range read {
			if fi == nRule {
				key.WriteByte('/') // the facts after it are the properties' only
			}
			key.WriteString(f)
			key.WriteByte(',')
			if len(m.dom.dynamic[f]) > 0 {
				key.WriteString(m.dom.dynamicKey(f, n.vals))
			}
			if m.dom.idFacts[f] || (echoing && f == echoFact) {
				if !echoing {
					if ids == nil {
						ids = m.ids(n)
					}
					evIDs = ids
				}
				key.WriteString(fmt.Sprint(evIDs))
			}
		}
		ctx := key.String()
		set, ok := m.evCache[ctx]
		if !ok {
			if !echoing {
				if ids == nil {
					ids = m.ids(n)
				}
				evIDs = ids
			}
			set = m.build(name, read, n, evIDs)
			if m.cacheBytes < m.opts.MaxBytes/4 {
				m.evCache[ctx] = set
				b := int64(len(ctx)) + int64(len(set.ins))*(variantBytes+4*int64(len(read)))
				for _, vals := range set.vals {
					b += int64(len(vals)) * (valueBytes + 16)
				}
				m.cacheBytes += b
				m.bytes += b
			}
		}
		out = append(out, set)
	}
	return out
}

// eventSet is the instances of one event kind from a state, kept
// compactly: per position among the facts varied (read), the fact's
// index in the event and type, its values as a host sends them (nil: the
// default) and as the event holds them; per instance, the index of each
// position's value. An instance is made whole only to be decided or
// checked (materialize). The classes of instances (classes.go) are keyed
// on the value indexes: per position, sizes says how many values it
// takes, and pos maps a fact's index in the event to its position (-1:
// not varied).
type eventSet struct {
	def   *contract.Event
	kind  int
	read  []string
	at    []int
	types []contract.Type
	axes  [][]any
	vals  [][]lang.Value
	sizes []int
	pos   []int8
	share bool // few enough facts varied for the classes' sets of positions
	ins   []variant
}

// variant is one instance of an event set: its value indexes, the class
// of the values of the facts the invariants read (invID), and whether it
// is a request the user typed, which ends every no_loop cycle, or a
// session start the host answers with a new window.
type variant struct {
	vi                    []uint32
	inv                   int32
	userInput, newSession bool
}

// facts is the step's event as a host sends it, facts at their default
// left out (nil for a clock move).
func (s *step) facts() map[string]any {
	if s.set == nil {
		return nil
	}
	return s.set.facts(s.vi)
}

func (set *eventSet) facts(vi []uint32) map[string]any {
	out := map[string]any{"event": set.def.Name}
	for i, f := range set.read {
		if v := set.axes[i][vi[i]]; v != nil && !isDefault(set.def, f, v) {
			out[f] = v
		}
	}
	return out
}

// load writes the values vi selects into b, over the defaults.
func (set *eventSet) load(b *engine.EventBuilder, vi []uint32) {
	b.Reset()
	for i, at := range set.at {
		setFact(b, set.types[i], at, set.vals[i][vi[i]])
	}
}

// loaded is the instance an event kind's builder holds.
type loaded struct {
	set *eventSet
	vi  []uint32
}

// setFact stores x, a value as the engine holds it, in fact at.
func setFact(b *engine.EventBuilder, t contract.Type, at int, x lang.Value) {
	i := engine.FactIndex(at)
	switch t {
	case contract.Bool:
		b.SetBool(i, x.Bool)
	case contract.Int:
		b.SetInt(i, int64(x.Num))
	case contract.String:
		_ = b.SetString(i, x.Str) // the engine's own value: in its enum
	case contract.Object:
		b.SetObject(i, x.Object())
	}
}

// materialize makes variant v of set whole, as sent from a state whose
// host is in window win at clock now. The instance is the model's
// scratch and its frame the event kind's builder's buffer: both good
// until the next materialize. Nil: the engine refuses the event (no
// instance a set keeps is refused: build tried each).
func (m *model) materialize(set *eventSet, v *variant, win, now lang.Value) *instance {
	b := m.builders[set.kind]
	if last := &m.loaded[set.kind]; last.set == set {
		// The builder holds the last instance of the set made whole:
		// only the values that differ are written.
		for i, x := range v.vi {
			if last.vi[i] != x {
				setFact(b, set.types[i], set.at[i], set.vals[i][x])
			}
		}
		last.vi = append(last.vi[:0], v.vi...)
	} else {
		set.load(b, v.vi)
		*last = loaded{set: set, vi: append(last.vi[:0], v.vi...)}
	}
	setFact(b, contract.String, winAt, win)
	setFact(b, contract.Int, nowAt, now)
	ev, err := b.Event()
	if err != nil {
		return nil
	}
	in := &m.x.in
	*in = instance{ev: ev, frame: ev.Facts(), pack: lang.Pack(ev.Facts()), kind: set.kind, inv: int(v.inv), set: set, vi: v.vi, userInput: v.userInput, newSession: v.newSession}
	return in
}

// The positions of window_id and now_ms in every event's facts (common
// facts come first).
var winAt, nowAt = slices.IndexFunc(contract.CommonFacts, func(f contract.Fact) bool { return f.Name == factWindow }),
	slices.IndexFunc(contract.CommonFacts, func(f contract.Fact) bool { return f.Name == factNow })

// hostValues are the window_id and now_ms facts of every event sent from
// n, as the engine reads them (a fact left out takes its default).
func (m *model) hostValues(n *node) (lang.Value, lang.Value) {
	win, now := lang.Value{Str: "w" + strconv.Itoa(n.window)}, lang.Value{Num: float64(n.now)}
	facts := map[string]any{"event": contract.Events[0].Name}
	if n.window != 1 {
		facts[factWindow] = win.Str
	}
	if n.now != 0 {
		facts[factNow] = n.now
	}
	if ev, err := engine.NewEvent(facts); err == nil {
		win, now = ev.Facts()[winAt], ev.Facts()[nowAt]
	}
	return win, now
}

// build makes the instances of one event kind from n.
func (m *model) build(name string, read []string, n *node, ids []any) *eventSet {
	kind := slices.Index(m.eventNames, name)
	def, _ := contract.LookupEvent(name)
	all := def.AllFacts()
	set := &eventSet{def: def, kind: kind, read: read, share: len(read) <= 64, pos: make([]int8, len(all))}
	for i := range set.pos {
		set.pos[i] = -1
	}
	deflt := m.builders[kind]
	deflt.Reset()
	m.loaded[kind].set = nil // the builder holds the defaults now
	ev, _ := deflt.Event()
	deflts := slices.Clone(ev.Facts())
	// Each value alone, as the engine takes it: the engine judges each
	// fact by itself (a negative count, a window of 0), so an instance is
	// refused exactly when one of its values is.
	// Each value is left out of the event when it is the default.
	var refused, inEvent [][]bool
	for i, f := range read {
		var axis []any
		switch {
		case f == factWindow || f == factNow:
			axis = []any{nil}
		case m.dom.idFacts[f] || (f == echoFact && echoed(name+"."+f)):
			if vals := m.dom.perEvent[name+"."+f]; len(vals) > 0 && m.dom.how[name+"."+f] == declared {
				axis = vals
			} else {
				axis = ids
			}
			if len(axis) == 0 {
				return set // an attempt callback before any attempt: none
			}
		default:
			vals, _ := m.dom.domain(name, f)
			if m.dom.how[name+"."+f] != declared && m.dom.how[f] != declared {
				vals = m.dom.withDynamic(f, vals, n.vals)
			}
			if len(vals) == 0 {
				vals = []any{nil}
			}
			axis = vals
		}
		at := slices.IndexFunc(all, func(x contract.Fact) bool { return x.Name == f })
		vals := make([]lang.Value, len(axis))
		bad, sent := make([]bool, len(axis)), make([]bool, len(axis))
		for j, v := range axis {
			vals[j] = deflts[at]
			if v == nil || isDefault(def, f, v) {
				continue
			}
			sent[j] = true
			if ev, err := engine.NewEvent(map[string]any{"event": name, f: v}); err == nil {
				vals[j] = ev.Facts()[at]
			} else {
				bad[j] = true
			}
		}
		set.at, set.types = append(set.at, at), append(set.types, all[at].Type)
		set.axes, set.vals, set.sizes = append(set.axes, axis), append(set.vals, vals), append(set.sizes, len(axis))
		refused, inEvent = append(refused, bad), append(inEvent, sent)
		if set.share {
			set.pos[at] = int8(i)
		}
	}
	idx := make([]int, len(read))
	facts := map[string]any{"event": name}
	value := func(f string) float64 {
		if v, ok := facts[f]; ok {
			x, _ := toFloat(v)
			return x
		}
		x, _ := toFloat(defaults()[def.Name][f])
		return x
	}
	cons := m.thresholdFacts(def, read, set.sizes, n)
	for {
		ok := true
		for i, f := range read {
			ok = ok && !refused[i][idx[i]]
			if inEvent[i][idx[i]] {
				facts[f] = set.axes[i][idx[i]]
			} else {
				delete(facts, f)
			}
		}
		if !ok || !consistent(facts) {
			// not an event a host sends
		} else if !interesting(cons, idx, value, m.dom, n) {
			// a threshold of another window, say: no guard tells it
			// from its neighbours here
		} else {
			v := variant{vi: make([]uint32, len(idx))}
			for i, x := range idx {
				v.vi[i] = uint32(x)
			}
			if in := m.materialize(set, &v, deflts[winAt], deflts[nowAt]); in != nil {
				v.inv = int32(m.invID(in.frame))
				v.userInput, v.newSession = hostFlags(def, in.frame)
				set.ins = append(set.ins, v)
			}
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(set.axes[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return set
}

// threshold is an int fact of an event set whose values are tried only
// where they are thresholds for the event's other facts (the token
// counts of one window are not tried at another): its position, the
// positions of the other facts that decides on (-1: not varied, at its
// default), and the answers found, by the value indexes of the three.
type threshold struct {
	name   string
	i      int
	others []int
	memo   map[uint64]bool
}

// thresholdFacts lists the facts of read that take only interesting
// values in n.
func (m *model) thresholdFacts(def *contract.Event, read []string, sizes []int, n *node) []threshold {
	var out []threshold
	for i, f := range read {
		if m.dom.idFacts[f] || echoed(def.Name+"."+f) || f == factNow || m.dom.how[f] == declared || m.dom.how[def.Name+"."+f] == declared {
			continue
		}
		if _, isNum := toFloat(defaults()[def.Name][f]); !isNum {
			continue
		}
		if len(m.dom.cond[f]) == 0 && len(m.dom.dynamic[f]) == 0 {
			continue // every value is
		}
		t := threshold{name: f, i: i, memo: map[uint64]bool{}}
		for _, o := range m.dom.othersOf(f, n.vals) {
			t.others = append(t.others, slices.Index(read, o))
		}
		if len(t.others) > 3 || slices.ContainsFunc(sizes, func(n int) bool { return n > 1<<16 }) {
			t.memo = nil // too many to key: asked each time
		}
		out = append(out, t)
	}
	return out
}

// interesting: every threshold fact of the event takes a value that is a
// threshold for the event's other facts (value reads them).
func interesting(ts []threshold, idx []int, value func(string) float64, d *domains, n *node) bool {
	for _, t := range ts {
		key := uint64(idx[t.i])
		for k, o := range t.others {
			if o >= 0 && t.memo != nil {
				key |= uint64(idx[o]) << (16 * uint(k+1))
			}
		}
		ok, seen := t.memo[key]
		if !seen {
			ok = d.interesting(t.name, value(t.name), value, n.vals)
			if t.memo != nil {
				t.memo[key] = ok
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// instance is one event as the engine takes it and as the property
// conditions see it.
type instance struct {
	ev    engine.Event
	frame []lang.Value
	pack  lang.Packed // the frame's bool and enum facts packed
	kind  int         // the event's index in the model's eventNames
	inv   int         // the values of the facts the invariants read (invID)
	// set and vi: the instance of an event set it is (nil for the
	// host's own events); a step names its event by them.
	set *eventSet
	vi  []uint32
	// userInput: a request the user typed, which ends every no_loop
	// cycle; newSession: a session start the host answers with a new
	// window.
	userInput, newSession bool
}

func instanceOf(def *contract.Event, facts map[string]any) (instance, error) {
	ev, err := engine.NewEvent(facts)
	if err != nil {
		return instance{}, err
	}
	in := instance{ev: ev, frame: ev.Facts(), pack: lang.Pack(ev.Facts())}
	in.userInput, in.newSession = hostFlags(def, ev.Facts())
	return in, nil
}

// hostFlags says whether an event is a request the user typed and
// whether it is a session start the host answers with a new window.
func hostFlags(def *contract.Event, frame []lang.Value) (userInput, newSession bool) {
	for i, f := range def.Facts { // the event's own, after the common
		at := len(contract.CommonFacts) + i
		switch {
		case def.Name == "request" && f.Name == "user_input":
			userInput = frame[at].Bool
		case def.Name == "session_start" && f.Name == "reason":
			newSession = frame[at].Str != "startup" && frame[at].Str != "reload"
		}
	}
	return userInput, newSession
}

// defaults holds each event's facts' contract defaults, made when verify
// first needs them: every start of the binary would otherwise build them.
var defaults = sync.OnceValue(func() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range contract.Events {
		m := map[string]any{}
		for _, f := range e.AllFacts() {
			if d, ok := f.Default.(int64); ok {
				m[f.Name] = float64(d)
			} else {
				m[f.Name] = f.Default
			}
		}
		out[e.Name] = m
	}
	return out
})

// isDefault: facts at their contract default are left out of an event, as
// a host may leave them out.
func isDefault(def *contract.Event, name string, v any) bool {
	d, ok := defaults()[def.Name][name]
	if !ok {
		return false
	}
	if x, isNum := toFloat(v); isNum {
		return d == x
	}
	return v == d
}
