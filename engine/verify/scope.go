package verify

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// A scoped property's state is its counter: scopeClosed, scopeArmed
// (after's first part came, its then not yet) or scopeOpen. verify keeps
// it from the events and effects themselves (rules/history.go says when
// each marker takes effect), never from the policy's slots. What the
// scope remembers of its opening (scope.NAME: the arguments of the effect
// that opened it, the clock then) is kept in the node's hist, only for
// the names the property's conditions read, and only while it is not
// closed, so a scope that remembers nothing costs no states.
const (
	scopeClosed = 0
	scopeArmed  = 1
	scopeOpen   = 2
	// scopeRearmed: open, and after's first part came again, so its then
	// opens it anew (one more opening, a new clock).
	scopeRearmed = 3
)

// The positions of opened_ms and openings among a scope's fields.
const (
	atOpened   = 0
	atOpenings = 1
)

func isOpen(state int) bool { return state == scopeOpen || state == scopeRearmed }

// scopeLayout is where one scoped property keeps what its scope
// remembers.
type scopeLayout struct {
	fields []lang.Field // rules.Property.ScopeFields, by frame position
	read   []int        // the fields kept, as indexes in fields
	at     int          // where the kept values start in node.hist
	// countCap: openings past it are alike for the property's
	// conditions (the largest count they read: a list param's length, an
	// int param or number up to maxCount).
	countCap float64
	// offsets are the param values and numbers the conditions read: the
	// deadlines opened_ms + offset are what they can compare the clock
	// with, so the key keeps each deadline still ahead, as for a time
	// slot, and no age.
	offsets []float64
	// timed: the property has within_ms; its deadline (the clock at the
	// latest opening plus within_ms) is kept in hist at dl. expires: an
	// open scope past it is closed, as nothing else it keeps (openings)
	// tells it from one that never opened.
	timed, expires bool
	dl             int
	// onEvent, per event kind, and onEffect: the events and effects a
	// marker of the scope names. A decision naming none leaves the scope
	// as it was (but for within).
	onEvent  []bool
	onEffect map[string]bool
	// opensOn, per event kind, and opensBy: those of after's markers and
	// thens, the only ones that move a closed scope.
	opensOn []bool
	opensBy map[string]bool
	// same is an earlier property with this very scope (markers, within,
	// within_ms, what it remembers), whose moves this one copies; -1: none.
	same int
	// reads: the conditions that read what the scope remembers, which
	// are evaluated on the slots and it; the others on the slots.
	reads []*lang.Program
}

// maxCount bounds the counts a scope's openings are told apart up to.
const maxCount = 64

// initScopes lays out what each scoped property remembers.
func (m *model) initScopes() {
	m.layout = make([]scopeLayout, len(m.props))
	m.inclusive = make([]bool, len(m.props))
	widest := 0
	for pi, pr := range m.props {
		if !pr.Scoped() {
			continue
		}
		l := &m.layout[pi]
		l.fields = pr.ScopeFields(len(m.p.Slots))
		for _, name := range pr.ScopeReads() {
			k := slices.IndexFunc(l.fields, func(f lang.Field) bool { return f.Name == name })
			l.read = append(l.read, k)
			switch name {
			case rules.ScopeOpenedAt:
				_, l.offsets = m.caps(pr)
			case rules.ScopeOpenings:
				l.countCap, _ = m.caps(pr)
			}
		}
		l.same = -1
		for pj := range pi {
			q, k := m.props[pj], &m.layout[pj]
			if q.Scoped() && sameScope(pr, q) && k.countCap == l.countCap && slices.Equal(k.offsets, l.offsets) {
				l.same = pj
				break
			}
		}
		l.at = m.histLen
		if l.same >= 0 {
			l.at = m.layout[l.same].at // one history for both
		}
		if pr.WithinMs != nil {
			l.timed, l.dl = true, l.at+len(l.read)
			l.expires = !slices.Contains(pr.ScopeReads(), rules.ScopeOpenings)
		}
		if l.same < 0 {
			m.histLen += len(l.read)
			if l.timed {
				m.histLen++
			}
		}
		widest = max(widest, len(l.fields))
		l.onEvent, l.onEffect = make([]bool, len(m.eventNames)), map[string]bool{}
		l.opensOn, l.opensBy = make([]bool, len(m.eventNames)), map[string]bool{}
		for _, mk := range pr.After {
			for _, o := range []*rules.Marker{mk, mk.Then} {
				if o == nil {
					continue
				}
				if k := slices.Index(m.eventNames, o.Event); k >= 0 {
					l.opensOn[k] = true
				}
				if o.Effect != "" {
					l.opensBy[o.Effect] = true
				}
			}
		}
		m.inclusive[pi] = slices.ContainsFunc(pr.Until, func(mk *rules.Marker) bool { return mk.Inclusive })
		for _, mk := range pr.ScopeMarkers() {
			for _, name := range append([]string{mk.Event}, mk.Unless...) {
				if k := slices.Index(m.eventNames, name); k >= 0 {
					l.onEvent[k] = true
				}
			}
			if mk.Effect != "" {
				l.onEffect[mk.Effect] = true
			}
			if mk.When != nil && readsScope(mk.When.Source) {
				l.reads = append(l.reads, mk.When)
			}
		}
		for _, w := range pr.When {
			if readsScope(w.Source) {
				l.reads = append(l.reads, w)
			}
		}
	}
	m.sv = make([]lang.Value, widest)
}

var (
	paramRef  = regexp.MustCompile(`\bparam\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)`)
	numberLit = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)
)

// caps are the largest count the property's conditions read (a list
// param's length, a param value or number up to maxCount) and the offsets
// they can add to a clock (every param value, a list's elements, every
// number): "scope.openings >= param.failure_limit" and
// "min(scope.openings, len(param.retry_delays_ms))" tell no two counts
// from the largest on apart, and "now_ms < scope.opened_ms +
// param.cooldown_ms" compares the clock with opened_ms + cooldown_ms only,
// so the counts and clocks kept stay finite. (A condition telling counts
// past the largest apart, "scope.openings > 3", is not kept apart: say
// ">= 4".)
func (m *model) caps(pr *rules.Property) (count float64, offsets []float64) {
	srcs := pr.ScopeSources()
	seen := func(v float64) {
		offsets = append(offsets, v)
		if v <= maxCount {
			count = max(count, v)
		}
	}
	for _, src := range srcs {
		for _, x := range paramRef.FindAllStringSubmatch(src, -1) {
			if prm, ok := m.p.Param(x[1]); ok {
				_, v := rules.ParamValue(prm.Value)
				seen(v.Num)
				for _, e := range v.NumList() {
					seen(e)
				}
				count = max(count, float64(len(v.NumList())))
			}
		}
		for _, x := range numberLit.FindAllString(src, -1) {
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				seen(f)
			}
		}
	}
	slices.Sort(offsets)
	return count, slices.Compact(offsets)
}

// loadScope is the property's scope state in n, with what it remembers in
// m.sv.
func (m *model) loadScope(pi int, n *node) int {
	l := &m.layout[pi]
	clear(m.sv[:len(l.fields)])
	m.dl = 0
	state := m.scopeState(pi, n)
	if state != scopeClosed {
		for j, k := range l.read {
			m.sv[k] = n.hist[l.at+j]
		}
		if l.timed && isOpen(state) {
			m.dl = n.hist[l.dl].Num
		}
	}
	return state
}

// scopeState is the property's scope state in n, an expired timed scope
// counted as closed (or, rearmed, as armed).
func (m *model) scopeState(pi int, n *node) int {
	state := n.counts[pi]
	l := &m.layout[pi]
	if l.expires && isOpen(state) && float64(n.now) >= n.hist[l.dl].Num {
		if state == scopeRearmed {
			return scopeArmed
		}
		return scopeClosed
	}
	return state
}

// inTime: a timed scope's deadline is still ahead.
func (m *model) inTime(pi int, now int64) bool {
	return !m.layout[pi].timed || float64(now) < m.dl
}

// frameState is the state a scoped condition is evaluated on: the slots
// before the event, then what the scope remembers.
func (m *model) frameState(pi int, n *node) []lang.Value {
	m.evalState = append(append(m.evalState[:0], n.vals...), m.sv[:len(m.layout[pi].fields)]...)
	return m.evalState
}

// holdsScoped evaluates a scoped property's condition w, on the slots and
// what the scope remembers when w reads it. holdsIn notes the facts it
// reads, so the classes of instances (classes.go) take them into account.
func (m *model) holdsScoped(pi int, w *lang.Program, in *instance, n *node) bool {
	if slices.Contains(m.layout[pi].reads, w) {
		return m.holdsIn(w, in, m.frameState(pi, n))
	}
	return m.holdsIn(w, in, n.vals)
}

// openedBy records what an opening marker brings: the arguments of the
// effect (none for an event), and, when the scope opens (not when it is
// only armed), the clock and one more opening.
func (m *model) openedBy(pi int, now int64, e *engine.Effect, opens bool, in *instance, n *node) {
	l := &m.layout[pi]
	if e != nil {
		for k, f := range l.fields[2:] {
			m.sv[k+2] = lang.Value{}
			v, ok := e.Arg(f.Name)
			if !ok {
				continue
			}
			switch x := v.(type) {
			case bool:
				m.sv[k+2] = lang.Value{Bool: x}
			case string:
				if len(f.Enum) > 0 {
					m.sv[k+2] = lang.Value{Num: float64(slices.Index(f.Enum, x))}
				} else {
					m.sv[k+2] = lang.Value{Str: x}
				}
			default:
				f, _ := toFloat(x)
				m.sv[k+2] = lang.Value{Num: f}
			}
		}
	}
	if opens {
		m.opens(pi, now, in, n)
	}
}

// opens: the scope opens (again) at now, on event in; a timed scope's
// deadline is within_ms from now, evaluated now.
func (m *model) opens(pi int, now int64, in *instance, n *node) {
	m.sv[atOpened] = lang.Value{Num: float64(now)}
	m.sv[atOpenings] = lang.Value{Num: min(m.sv[atOpenings].Num+1, m.layout[pi].countCap)}
	if w := m.props[pi].WithinMs; w != nil {
		m.frame.BeginPacked(in.frame, m.frameState(pi, n), in.pack)
		v := w.Eval(&m.frame)
		m.dl = float64(now) + v.Num
		if m.frame.Err != nil {
			m.dl = float64(now)
		}
	}
}

// closed forgets what the scope remembered.
func (m *model) closed(pi int) int {
	clear(m.sv[:len(m.layout[pi].fields)])
	m.dl = 0
	return scopeClosed
}

// atEvent: the scope's state when the event's effects begin, its event
// markers applied (an inclusive until waits for the decision's end).
func (m *model) atEvent(pi int, pr *rules.Property, n *node, in *instance) int {
	return m.atEventFrom(pi, pr, n, in, m.loadScope(pi, n))
}

// atEventFrom is atEvent from the scope state loaded into m.sv.
func (m *model) atEventFrom(pi int, pr *rules.Property, n *node, in *instance, state int) int {
	if m.markerEvent(pi, pr.Until, false, n, in) {
		state = m.closed(pi)
	}
	if state == scopeArmed || state == scopeRearmed {
		// A then is the next event of its name: the scope opens when that
		// event meets its condition, and is disarmed when it does not, or
		// when one of the then's unless comes first (a rearmed scope stays
		// open).
		name := in.ev.Name()
		seen, met, disarm := false, false, false
		for _, mk := range pr.After {
			t := mk.Then
			if t == nil || t.Event == "" {
				continue
			}
			disarm = disarm || slices.Contains(t.Unless, name)
			if t.Event == name {
				seen = true
				met = met || m.markerHolds(pi, t, n, in)
			}
		}
		switch {
		case met:
			state = scopeOpen
			m.opens(pi, n.now, in, n)
		case (seen || disarm) && state == scopeRearmed:
			state = scopeOpen
		case seen || disarm:
			state = m.closed(pi)
		}
	}
	for _, mk := range pr.After {
		if mk.Event == in.ev.Name() && m.markerHolds(pi, mk, n, in) {
			state = opened(mk, state)
			m.openedBy(pi, n.now, nil, mk.Then == nil, in, n)
		}
	}
	return state
}

// opened is the state after an after marker's first part: open, or armed
// for its then.
func opened(mk *rules.Marker, state int) int {
	switch {
	case mk.Then == nil:
		return scopeOpen
	case isOpen(state):
		return scopeRearmed
	}
	return scopeArmed
}

// scopeBreaks: whether the decision breaks the scoped property pr. An
// obligation is broken when the scope is open at the event and the
// property's condition holds (the effect is known to be missing); a ban
// when one of its effects is emitted while the scope is open and the
// condition holds then, effect markers applied in order (an effect that
// opens the scope is not itself inside it).
func (m *model) scopeBreaks(pi int, pr *rules.Property, w *lang.Program, n *node, in *instance, st *step) bool {
	state := m.atEvent(pi, pr, n, in)
	if pr.Kind == rules.AlwaysEmits {
		return isOpen(state) && m.inTime(pi, n.now) && (w == nil || m.holdsScoped(pi, w, in, n))
	}
	for _, e := range st.effects {
		if isOpen(state) && m.inTime(pi, n.now) && matches(pr, e) && (w == nil || m.holdsScoped(pi, w, in, n)) {
			return true
		}
		state = m.effectMoves(pi, pr, e, in, n, st, state)
	}
	return false
}

// effectMoves applies one effect's markers to the scope. A reset the host
// could not carry out is no marker, as it counts for no at_most.
func (m *model) effectMoves(pi int, pr *rules.Property, e engine.Effect, in *instance, n *node, st *step, state int) int {
	if st.failed && (e.Name == "commit_reset" || e.Name == "provide_reset") {
		return state
	}
	if markerEffect(pr.Until, e) {
		state = m.closed(pi)
	}
	if state == scopeArmed || state == scopeRearmed {
		for _, mk := range pr.After {
			if t := mk.Then; t != nil && t.Effect != "" && markerEffect([]*rules.Marker{t}, e) {
				state = scopeOpen
				m.opens(pi, st.now, in, n)
			}
		}
	}
	for _, mk := range pr.After {
		if mk.Effect != "" && markerEffect([]*rules.Marker{mk}, e) {
			state = opened(mk, state)
			m.openedBy(pi, st.now, &e, mk.Then == nil, in, n)
		}
	}
	return state
}

// scopeAfter is the scope's state after the decision: its event markers,
// then its effects in order, then its inclusive until and the end of the
// window or run. What the scope remembers goes to hist.
func (m *model) scopeAfter(pi int, pr *rules.Property, n *node, in *instance, st *step, newWindow bool, hist []lang.Value) int {
	if !m.movesScope(pi, pr, n, in, st, newWindow) {
		return n.counts[pi] // hist holds n's already
	}
	// An inclusive until reads the scope as it was when the event came.
	state := m.loadScope(pi, n)
	closeAfter := m.inclusive[pi] && m.markerEvent(pi, pr.Until, true, n, in)
	state = m.atEventFrom(pi, pr, n, in, state)
	for _, e := range st.effects {
		state = m.effectMoves(pi, pr, e, in, n, st, state)
	}
	if closeAfter || (pr.Within == "window" && newWindow) || (pr.Within == "run" && in.ev.Name() == "settled") {
		state = m.closed(pi)
	}
	l := &m.layout[pi]
	for j, k := range l.read {
		hist[l.at+j] = m.sv[k]
	}
	if l.timed {
		hist[l.dl] = lang.Value{Num: m.dl}
	}
	return state
}

// markerHolds: the event marker's condition holds on the event.
func (m *model) markerHolds(pi int, mk *rules.Marker, n *node, in *instance) bool {
	return mk.When == nil || m.holdsScoped(pi, mk.When, in, n)
}

// markerEvent: the event is one of the markers' events (inclusive ones or
// the others) and its condition holds on the state before it and what the
// scope remembers (m.sv).
func (m *model) markerEvent(pi int, ms []*rules.Marker, inclusive bool, n *node, in *instance) bool {
	for _, mk := range ms {
		if mk.Event != in.ev.Name() || mk.Inclusive != inclusive {
			continue
		}
		if mk.When == nil || m.holdsScoped(pi, mk.When, in, n) {
			return true
		}
	}
	return false
}

// markerEffect: the effect is one of the markers' effects, with their
// arguments.
func markerEffect(ms []*rules.Marker, e engine.Effect) bool {
	for _, mk := range ms {
		if mk.Effect == "" || e.Name != mk.Effect {
			continue
		}
		if argsMatch(mk.With, e) {
			return true
		}
	}
	return false
}

// histKey writes what the open scopes remember into a state's key: an
// opening clock as the deadlines still ahead it makes, the openings
// (already capped), an int argument (an attempt) relative to the newest id
// the state holds, others exactly.
func (m *model) histKey(b []byte, n *node, maxID float64) []byte {
	for pi := range m.layout {
		l := &m.layout[pi]
		if l.same >= 0 {
			continue // its history is an earlier property's
		}
		state := m.scopeState(pi, n)
		if l.timed && isOpen(state) {
			b = append(b, 'd')
			b = append(b, lang.FormatNum(math.Max(n.hist[l.dl].Num-float64(n.now), 0))...)
			b = append(b, ';')
		}
		if len(l.read) == 0 || state == scopeClosed {
			continue
		}
		for j, k := range l.read {
			v := n.hist[l.at+j]
			f := l.fields[k]
			switch {
			case k == atOpened:
				// Each deadline the conditions can compare the clock with,
				// still ahead, counts from now; one passed is 0, as for a
				// time slot.
				b = append(b, 'a')
				for _, off := range l.offsets {
					b = append(b, lang.FormatNum(math.Max(v.Num+off-float64(n.now), 0))...)
					b = append(b, '/')
				}
			case k == atOpenings:
				b = append(b, 'n')
				b = append(b, lang.FormatNum(v.Num)...)
			case f.Type == lang.Int:
				b = append(b, relID(v.Num, maxID)...)
			case f.Type == lang.Bool:
				b = strconv.AppendBool(b, v.Bool)
			case len(f.Enum) > 0 || f.Type.Numeric():
				b = append(b, lang.FormatNum(v.Num)...)
			default:
				b = strconv.AppendQuote(b, v.Str)
			}
			b = append(b, ';')
		}
	}
	return b
}

// relID is an id as the state key holds it: 0 (none), or relative to the
// newest id, older than three back alike.
func relID(v, maxID float64) string {
	if v == 0 {
		return "0"
	}
	return "i" + lang.FormatNum(math.Max(v-maxID, -3))
}

// openerGuard widens a run block's assertion for a property whose
// conditions read the arguments of the effect that opened its scope: the
// events of the run are callbacks echoing what that effect carried in the
// counterexample, and against a policy whose effect carries something
// else (the fixed one) they echo nothing of its own. So the run asserts
// the property's requirement only where the opening effect carried those
// values: "… || !any(decisions[K].effects, .effect == 'compact' &&
// .attempt == 1)". "" when the property reads no argument.
func (m *model) openerGuard(pi int, pr *rules.Property, trace []TraceStep) string {
	l := &m.layout[pi]
	var args []string
	for _, k := range l.read {
		if k > atOpenings {
			args = append(args, l.fields[k].Name)
		}
	}
	if len(args) == 0 || len(trace) == 0 {
		return ""
	}
	effect := pr.After[0].Effect
	at := -1
	for j := len(trace) - 1; j >= 0 && at < 0; j-- {
		if j == len(trace)-1 && pr.Kind == rules.AlwaysEmits {
			continue // an obligation's scope was open before its event
		}
		for _, e := range trace[j].Effects {
			if e["effect"] == effect {
				at = j
			}
		}
	}
	if at < 0 {
		return ""
	}
	var cond string
	for _, e := range trace[at].Effects {
		if e["effect"] != effect {
			continue
		}
		cond = ".effect == '" + effect + "'"
		for _, a := range args {
			switch v := e[a].(type) {
			case string:
				cond += " && ." + a + " == " + strconv.Quote(v)
			case nil:
			default:
				cond += " && ." + a + " == " + fmt.Sprint(v)
			}
		}
	}
	return fmt.Sprintf("!any(decisions[%d].effects, %s)", at, cond)
}

var scopeRead = regexp.MustCompile(`\bscope\s*\.`)

// readsScope: the expression reads what a scope remembers.
func readsScope(src string) bool { return scopeRead.MatchString(src) }

// movesScope: the decision names a marker of the scope, or ends its
// window or run; otherwise the scope stays as it was.
func (m *model) movesScope(pi int, pr *rules.Property, n *node, in *instance, st *step, newWindow bool) bool {
	l := &m.layout[pi]
	on, by := l.onEvent, l.onEffect
	if m.scopeState(pi, n) == scopeClosed {
		on, by = l.opensOn, l.opensBy // a closed scope only opens
	}
	if on[in.kind] || (pr.Within == "window" && newWindow) || (pr.Within == "run" && in.ev.Name() == "settled") {
		return true
	}
	for _, e := range st.effects {
		if by[e.Name] {
			return true
		}
	}
	return false
}

// sameScope: two properties' scopes move alike: the same markers (events,
// effects, conditions, thens, unless, inclusive), within and within_ms,
// and they remember the same.
func sameScope(p, q *rules.Property) bool {
	return scopeSig(p) == scopeSig(q) && slices.Equal(p.ScopeReads(), q.ScopeReads())
}

func scopeSig(p *rules.Property) string {
	var b strings.Builder
	var one func(mk *rules.Marker)
	one = func(mk *rules.Marker) {
		fmt.Fprintf(&b, "%s/%s%v", mk.Event, mk.Effect, mk.With)
		if mk.When != nil {
			b.WriteString("?" + mk.When.Source)
		}
		fmt.Fprintf(&b, "%v%v", mk.Unless, mk.Inclusive)
		if mk.Then != nil {
			b.WriteString(" then ")
			one(mk.Then)
		}
		b.WriteString(";")
	}
	for _, mk := range p.After {
		one(mk)
	}
	b.WriteString("|")
	for _, mk := range p.Until {
		one(mk)
	}
	b.WriteString("|" + p.Within)
	if p.WithinMs != nil {
		b.WriteString("|" + p.WithinMs.Source)
	}
	return b.String()
}
