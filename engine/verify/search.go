package verify

import (
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Options bound the exploration. Every bound but Depth makes a cut
// exploration incomplete, which fails: a property checked on part of the
// states proves nothing about the rest.
type Options struct {
	// Depth bounds the length of explored event sequences; 0: no bound.
	Depth int
	// MaxStates bounds the abstract states explored; 0: DefaultMaxStates.
	MaxStates int
	// MaxTransitions bounds the decisions explored; 0:
	// DefaultMaxTransitions.
	MaxTransitions int
	// MaxBytes bounds the estimated bytes the exploration holds (states,
	// their keys and values, the moves kept for counterexamples and loops,
	// the event instances cached); 0: DefaultMaxBytes.
	MaxBytes int64
	// Stop, when set, is asked between states whether the time budget is
	// spent (the caller owns the clock: the package reads none); TimeLimit
	// is that budget in seconds, for the report.
	Stop      func() bool
	TimeLimit float64
	// FailFast stops the exploration at the first property that fails
	// (breadth-first, so its counterexample is still a shortest one); the
	// result is then bounded and says nothing of the other properties.
	FailFast bool
	// AllWarnings keeps, for a policy that uses a built-in, the file-order
	// warnings between two of the built-in's own rules; by default only
	// those involving a rule the file adds or replaces are reported.
	AllWarnings bool
	// Observe, when set, sees every transition explored: the slots before
	// and after (by slot index; enum slots hold their value's index), the
	// event's name and the rules that fired. The state graph uses it.
	Observe func(from, to []lang.Value, event string, rules []string)

	// everyInstance decides and checks every event instance on its own,
	// as the classes of instances (classes.go) stand in for: for tests.
	everyInstance bool
}

// The default bounds.
const (
	DefaultMaxStates      = 200000
	DefaultMaxTransitions = 20000000
	DefaultMaxBytes       = 512 << 20
)

type model struct {
	p          *rules.Policy
	eng        *engine.Engine
	sess       *engine.Session
	dom        *domains
	shape      shape
	eventNames []string
	evCache    map[string]*eventSet
	props      []*rules.Property

	nodes []*node
	index map[string]int
	// edges between abstract states that bring no new input, for the
	// no_loop properties: from -> to -> the step and whether it continued.
	edges map[int]map[int]edge

	fired       map[string]bool
	reached     []map[int]bool // per enum slot, the value indexes held
	found       map[string]*Finding
	order       []string
	transitions int
	buf         []lang.Value
	keyBuf      []byte
	frame       lang.Frame // for property conditions and guards
	orderSeen   map[[2]*rules.CompiledRule]bool
	orderIdx    map[*rules.CompiledRule]*orderCands
	// ruleAt maps, per group of a plan, each rule's name to its index.
	ruleAt     map[*rules.PlanGroup]map[string]int
	warnings   []Finding
	opts       Options
	bounded    bool
	incomplete bool   // a bound other than --depth cut the exploration
	bound      *Bound // the bound that cut it
	bytes      int64  // estimated bytes held
	cacheBytes int64  // of which the event instances cached
	// hiddenWarnings counts the built-in's own file-order warnings left
	// out of a composed policy's report.
	hiddenWarnings int

	x   expansion // one state's expansion
	cur step      // the transition being checked
	// effectProps lists, per event kind (index in eventNames), the never
	// and always_emits properties on it.
	effectProps [][]int
	// invFacts are the common facts the invariants read (the window and
	// the clock aside: they are the state's), and invIDs numbers their
	// values as events carry them.
	invFacts []int
	invIDs   map[string]int
	// readers, per event kind, and that event with every fact at its
	// default, for the conjuncts that read the state only (readers.go).
	readers    [][]reader
	hostEvents []instance
	need       map[string]byte
	// The rules of each event kind's plan groups and the conditions'
	// conjuncts, with the facts they read (classes.go); the index of a
	// request's user_input and a session_start's reason (-1: none).
	ruleGroups            [][]ruleGroup
	builders              []*engine.EventBuilder // per event kind
	loaded                []loaded               // what each builder holds
	tparts                map[tkey][]tpart
	userInputAt, reasonAt []int
	hasInvariants         bool
	// layout, per scoped property, is where its scope's memory is kept in
	// node.hist (histLen values in all); sv, dl and evalState are scratch
	// (scope.go).
	layout    []scopeLayout
	inclusive []bool // per property: an until marker is inclusive
	histLen   int
	sv        []lang.Value
	dl        float64 // the deadline of the timed scope in sv
	evalState []lang.Value
	// bare: per echoed effect, some rule emits it without an attempt.
	bare *[2]bool
}

type edge struct {
	st        *step
	continues []bool // per property
	free      []bool // per property: an event without new input leads here
}

// Check explores every state policy p can reach and checks its properties
// and the built-in checks. It is pure: no clock, files or environment.
func Check(p *rules.Policy, opts Options) *Result {
	if err := p.CompilePlans(); err != nil {
		return &Result{Policy: p.Name, Incomplete: true, Findings: []Finding{{Name: "plans", Kind: KindRuntime, Message: err.Error()}}}
	}
	if opts.MaxStates == 0 {
		opts.MaxStates = DefaultMaxStates
	}
	if opts.MaxTransitions == 0 {
		opts.MaxTransitions = DefaultMaxTransitions
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	m := &model{p: p, eng: engine.New(p), evCache: map[string]*eventSet{}, props: p.Properties,
		index: map[string]int{}, orderSeen: map[[2]*rules.CompiledRule]bool{}, edges: map[int]map[int]edge{}, fired: map[string]bool{}, found: map[string]*Finding{}}
	m.opts = opts
	m.orderIdx, m.ruleAt = map[*rules.CompiledRule]*orderCands{}, map[*rules.PlanGroup]map[string]int{}
	for _, plan := range p.Plans {
		for gi := range plan.Groups {
			pg := &plan.Groups[gi]
			at := map[string]int{}
			for ri, cr := range pg.Rules {
				at[cr.Rule.Name] = ri
			}
			m.ruleAt[pg] = at
		}
	}
	m.frame.Memo = make([]lang.Memo, len(p.Derived))
	m.sess = m.eng.NewSession()
	initial := m.sess.Values(nil)
	m.dom, _ = deriveDomains(p, initial)
	m.shape = slotShape(p)
	handled := map[string]bool{}
	for _, plan := range p.Plans {
		for _, pg := range plan.Groups {
			if len(pg.Rules) > 0 {
				handled[plan.Event.Name] = true
			}
		}
	}
	for _, pr := range p.Properties {
		for _, e := range append(append(slices.Clone(pr.On), pr.CycleEndsOn...), pr.InputEvents...) {
			handled[e] = true
		}
		// An event only a scope names still moves the scope: a composed
		// policy that disables the one rule of session_shutdown must not
		// take the shutdown, and what the scope says after it, out of the
		// exploration.
		for _, e := range scopeEvents(pr) {
			handled[e] = true
		}
	}
	for _, e := range contract.Events {
		if handled[e.Name] {
			m.eventNames = append(m.eventNames, e.Name)
		}
	}
	m.x = expansion{byHash: map[uint64][]int{}, classes: map[string]struct{}{}, invChecked: map[uint64]bool{}, seed: maphash.MakeSeed()}
	m.indexProperties()
	m.initScopes()
	m.bare = bareEffects(p)
	m.readersOf()
	m.ruleReadersOf()
	m.hasInvariants = slices.ContainsFunc(p.Properties, func(pr *rules.Property) bool { return pr.Kind == rules.Always && pr.Always != nil })
	for _, name := range m.eventNames {
		b, _ := engine.NewEventBuilder(name) // a contract event: known
		m.builders = append(m.builders, b)
		m.loaded = append(m.loaded, loaded{})
	}
	m.need = map[string]byte{}
	for _, s := range p.Slots {
		if s.IsEnum() {
			m.reached = append(m.reached, map[int]bool{})
		} else {
			m.reached = append(m.reached, nil)
		}
	}
	root := &node{vals: initial, window: 1, counts: make([]int, len(p.Properties)), hist: make([]lang.Value, m.histLen), echo: noEchoes, parent: -1}
	m.add(root)
	if in, err := instanceOf(&contract.Events[0], map[string]any{"event": contract.Events[0].Name}); err == nil {
		m.checkAlways(0, root, &in, nil)
	}
	for i := 0; i < len(m.nodes); i++ {
		if opts.FailFast && len(m.order) > 0 {
			m.bounded, m.bound = true, &Bound{Kind: BoundFirstFailure, Limit: 1}
			break
		}
		if b := m.overBound(i); b != nil {
			m.bounded, m.incomplete, m.bound = true, true, b
			break
		}
		n := m.nodes[i]
		if opts.Depth > 0 && n.depth >= opts.Depth {
			m.bounded = true
			if m.bound == nil {
				m.bound = &Bound{Kind: BoundDepth, Limit: float64(opts.Depth)}
			}
			continue
		}
		m.expand(i, n)
	}
	m.checkLoops()
	return m.result()
}

// indexProperties lists the properties each event kind is checked against
// and the facts the invariants read.
func (m *model) indexProperties() {
	m.effectProps = make([][]int, len(m.eventNames))
	for k, name := range m.eventNames {
		for pi, pr := range m.props {
			if (pr.Kind == rules.Never || pr.Kind == rules.AlwaysEmits) && (len(pr.On) == 0 || slices.Contains(pr.On, name)) {
				m.effectProps[k] = append(m.effectProps[k], pi)
			}
		}
	}
	m.invIDs = map[string]int{}
	read := map[string]bool{}
	for _, pr := range m.props {
		if pr.Kind == rules.Always && pr.Always != nil {
			for _, f := range m.dom.an.info(pr.Always.Source).facts {
				read[f] = true
			}
		}
	}
	for fi, f := range contract.CommonFacts {
		if read[f.Name] && f.Name != factWindow && f.Name != factNow {
			m.invFacts = append(m.invFacts, fi)
		}
	}
}

// invID numbers the values an event gives the facts the invariants read.
func (m *model) invID(frame []lang.Value) int {
	var b strings.Builder
	for _, fi := range m.invFacts {
		v := frame[fi]
		fmt.Fprintf(&b, "%v|%q|%v;", v.Num, v.Str, v.Bool)
	}
	id, ok := m.invIDs[b.String()]
	if !ok {
		id = len(m.invIDs)
		m.invIDs[b.String()] = id
	}
	return id
}

// overBound names the bound the exploration has reached, if any, before
// expanding node i.
func (m *model) overBound(i int) *Bound {
	switch {
	case len(m.index) >= m.opts.MaxStates:
		return &Bound{Kind: BoundStates, Limit: float64(m.opts.MaxStates)}
	case m.transitions >= m.opts.MaxTransitions:
		return &Bound{Kind: BoundTransitions, Limit: float64(m.opts.MaxTransitions)}
	case m.bytes >= m.opts.MaxBytes:
		return &Bound{Kind: BoundMemory, Limit: float64(m.opts.MaxBytes)}
	case m.opts.Stop != nil && i%16 == 0 && m.opts.Stop():
		return &Bound{Kind: BoundTime, Limit: m.opts.TimeLimit}
	}
	return nil
}

// Estimated sizes, for the memory bound: a node with its key and index
// entry, a value, a kept move, an edge entry, a cached event instance
// (its value indexes apart).
const (
	nodeBytes    = int64(unsafe.Sizeof(node{})) + 64
	valueBytes   = int64(unsafe.Sizeof(lang.Value{}))
	stepBytes    = int64(unsafe.Sizeof(step{})) + 48
	edgeBytes    = int64(unsafe.Sizeof(edge{})) + 64
	variantBytes = int64(unsafe.Sizeof(variant{})) + 16
)

func (m *model) add(n *node) (int, bool) {
	m.keyBuf = m.key(m.keyBuf, n)
	if i, ok := m.index[string(m.keyBuf)]; ok {
		return i, false
	}
	k := string(m.keyBuf)
	m.bytes += nodeBytes + 2*int64(len(k)) + int64(len(n.vals))*valueBytes + 8*int64(len(n.counts))
	for _, v := range n.vals {
		m.bytes += int64(len(v.Str))
	}
	if n.via != nil {
		m.bytes += stepBytes
	}
	i := len(m.nodes)
	m.index[k] = i
	m.nodes = append(m.nodes, n)
	for si, s := range m.p.Slots {
		if s.IsEnum() {
			m.reached[si][int(n.vals[si].Num)] = true
		}
	}
	return i, true
}

// effectCond is a test-file predicate on one effect: the effect the
// property is about, with its arguments.
func effectCond(pr *rules.Property) string {
	cond := ".effect == '" + pr.Effect + "'"
	for _, k := range slices.Sorted(maps.Keys(pr.With)) {
		switch v := pr.With[k].(type) {
		case string:
			cond += " && ." + k + " == '" + v + "'"
		default:
			cond += fmt.Sprintf(" && .%s == %v", k, v)
		}
	}
	return cond
}

// noneAssert is a test-file condition: the last decision has no effect
// the property is about.
func noneAssert(pr *rules.Property) string {
	return "none(last.effects, " + effectCond(pr) + ")"
}

// anyAssert: the last decision has the effect an obligation requires.
func anyAssert(pr *rules.Property) string {
	return "any(last.effects, " + effectCond(pr) + ")"
}

// atMostAssert is a test-file condition: the decisions since the window or
// cycle of the counterexample's last event began emit the effect at most
// Count times. That start is the last state on the way to node i whose
// counter was 0.
func (m *model) atMostAssert(pr *rules.Property, pi, i int) string {
	at := i
	for at >= 0 && m.nodes[at].counts[pi] > 0 && m.nodes[at].parent >= 0 {
		at = m.nodes[at].parent
	}
	k := 0
	for _, s := range m.path(at) {
		if s.set != nil {
			k++ // a clock move is no decision of the run
		}
	}
	return fmt.Sprintf("reduce(decisions[%d:], #acc + len(filter(.effects, %s)), 0) <= %d", k, effectCond(pr), pr.Count)
}

// effectText names the effect with its arguments, for messages.
func effectText(pr *rules.Property) string {
	if len(pr.With) == 0 {
		return pr.Effect
	}
	var args []string
	for _, k := range slices.Sorted(maps.Keys(pr.With)) {
		args = append(args, fmt.Sprintf("%s = %v", k, pr.With[k]))
	}
	return pr.Effect + " { " + strings.Join(args, ", ") + " }"
}

// matches reports whether an effect is the one a property is about.
func matches(pr *rules.Property, e engine.Effect) bool {
	return e.Name == pr.Effect && argsMatch(pr.With, e)
}

// argsMatch: the effect has each of these arguments, with that value.
func argsMatch(with map[string]any, e engine.Effect) bool {
	for k, want := range with {
		got, ok := e.Arg(k)
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			return false
		}
	}
	return true
}

// checkEffects checks the decision of event in against the never and
// always_emits properties whose events it is on. A property's condition is
// evaluated only where the decision would break it (a never whose effect
// was emitted, an always_emits whose effect was not) and while it has not
// failed yet: elsewhere the property holds whatever the condition says. A
// scoped property (rules/history.go) holds inside its scope only: an
// obligation when the scope is open at the event, a ban on the effects
// emitted while it is open.
func (m *model) checkEffects(i int, n *node, in *instance, st *step) {
	for _, pi := range m.effectProps[in.kind] {
		pr := m.props[pi]
		if _, failed := m.found[pr.Name]; failed {
			continue
		}
		emitted := slices.ContainsFunc(st.effects, func(e engine.Effect) bool { return matches(pr, e) })
		if (pr.Kind == rules.Never) != emitted {
			continue
		}
		var w *lang.Program
		if pr.When != nil {
			w = pr.When[in.ev.Name()]
			if w == nil {
				w = pr.When[""]
			}
			if w == nil {
				continue
			}
		}
		scope := ""
		if pr.Scoped() {
			// The condition may read what the scope remembers: it is
			// evaluated where the scope is open.
			if !m.scopeBreaks(pi, pr, w, n, in, st) {
				continue
			}
			scope = " " + pr.ScopeText()
		} else if w != nil && !m.holdsIn(w, in, n.vals) {
			continue
		}
		if pr.Kind == rules.Never {
			m.report(pr.Name, KindProperty, fmt.Sprintf("%s yields %s%s", in.ev.Name(), pr.Effect, scope), i, st)
			m.found[pr.Name].Assert = noneAssert(pr)
		} else {
			m.report(pr.Name, KindProperty, fmt.Sprintf("%s does not yield %s%s", in.ev.Name(), effectText(pr), scope), i, st)
			m.found[pr.Name].Assert = anyAssert(pr)
		}
		if f := m.found[pr.Name]; pr.Scoped() {
			if g := m.openerGuard(pi, pr, f.Trace); g != "" {
				f.Assert = "(" + f.Assert + ") || " + g
			}
		}
	}
}

// count updates the at_most counters after a decision; a reset the host
// could not carry out does not count.
func (m *model) count(out []int, hist []lang.Value, i int, n *node, in *instance, st *step, newWindow bool) ([]int, []lang.Value) {
	out = append(out[:0], n.counts...)
	hist = append(hist[:0], n.hist...)
	for pi, pr := range m.props {
		if pr.Scoped() {
			if pj := m.layout[pi].same; pj >= 0 {
				// The same scope as an earlier property's, and the same
				// history: the same state.
				out[pi] = out[pj]
				continue
			}
			out[pi] = m.scopeAfter(pi, pr, n, in, st, newWindow, hist)
			continue
		}
		if pr.Kind != rules.AtMost {
			continue
		}
		if len(pr.On) > 0 && !slices.Contains(pr.On, in.ev.Name()) {
			goto reset
		}
		for _, e := range st.effects {
			if matches(pr, e) && !(st.failed && (e.Name == "commit_reset" || e.Name == "provide_reset")) {
				out[pi]++
			}
		}
		if out[pi] > pr.Count {
			if _, seen := m.found[pr.Name]; !seen {
				m.report(pr.Name, KindProperty, fmt.Sprintf("%d × %s in one %s", out[pi], pr.Effect, pr.Per), i, st)
				m.found[pr.Name].Assert = m.atMostAssert(pr, pi, i)
			}
			out[pi] = pr.Count // keep exploring from a bounded counter
		}
	reset:
		if (pr.Per == "window" && newWindow) || (pr.Per == "cycle" && m.endsCycle(pr, n, in)) {
			out[pi] = 0
		}
	}
	return out, hist
}

func (m *model) endsCycle(pr *rules.Property, n *node, in *instance) bool {
	return m.eventHolds(pr.CycleEndsOn, pr.CycleEndsWhen, n, in)
}

// holds evaluates a condition on an event's facts and a state, in the
// model's one frame (no allocation per evaluation).
func (m *model) holds(w *lang.Program, event, state []lang.Value) bool {
	m.frame.Begin(event, state)
	return w.B(&m.frame) && m.frame.Err == nil
}

// eventHolds: the event is one of names and its condition, if any, holds
// on the state before it.
func (m *model) eventHolds(names []string, conds map[string]*lang.Program, n *node, in *instance) bool {
	if !slices.Contains(names, in.ev.Name()) {
		return false
	}
	w := conds[in.ev.Name()]
	if w == nil {
		return true
	}
	return m.holdsIn(w, in, n.vals)
}

func (m *model) checkAlways(i int, next *node, in *instance, st *step) {
	for _, pr := range m.props {
		if pr.Kind != rules.Always || pr.Always == nil {
			continue
		}
		m.frame.Begin(in.frame[:len(contract.CommonFacts)], next.vals)
		ok := pr.Always.B(&m.frame)
		if err := m.frame.Err; err != nil || !ok {
			msg := "the invariant is false after the event"
			if err != nil {
				msg = "the invariant cannot be evaluated: " + err.Error()
			}
			if st == nil {
				msg += " (in the initial state)"
			}
			if _, seen := m.found[pr.Name]; seen {
				continue
			}
			m.report(pr.Name, KindProperty, msg, i, st)
			if f := m.found[pr.Name]; len(f.Trace) > 0 {
				f.Assert = m.invariantAssert(pr.Always.Source, f.Trace[len(f.Trace)-1].Event)
			}
		}
	}
}

// isInput: an event that brings new input ends a no_loop cycle.
func (m *model) isInput(pr *rules.Property, n *node, in *instance) bool {
	if in == nil {
		return false // the clock moved
	}
	if in.userInput {
		return true
	}
	return m.eventHolds(pr.InputEvents, pr.InputWhen, n, in)
}

// loopBits says, per no_loop property, whether the transition brings no
// new input (free) and, if so, whether it emits the effect (cont); any is
// whether some property has it free.
func (m *model) loopBits(cont, free []bool, n *node, in *instance, st *step) ([]bool, []bool, bool) {
	cont, free = cont[:0], free[:0]
	any := false
	for _, pr := range m.props {
		c, f := false, false
		if pr.Kind == rules.NoLoop && !m.isInput(pr, n, in) {
			any, f = true, true
			c = slices.ContainsFunc(st.effects, func(e engine.Effect) bool { return matches(pr, e) })
		}
		cont, free = append(cont, c), append(free, f)
	}
	return cont, free, any
}

// edge records a transition between abstract states for the no_loop
// properties: per property, whether some event without new input leads
// from i to j, and whether one of those emits the effect.
func (m *model) edge(i, j int, st *step, cont, free []bool) {
	if m.edges[i] == nil {
		m.edges[i] = map[int]edge{}
	}
	prev, ok := m.edges[i][j]
	if !ok {
		m.bytes += edgeBytes + stepBytes + int64(len(cont))*2
		m.edges[i][j] = edge{st: st, continues: slices.Clone(cont), free: slices.Clone(free)}
		return
	}
	for k := range cont {
		if cont[k] && !prev.continues[k] {
			prev.st = st
		}
		prev.continues[k] = prev.continues[k] || cont[k]
		prev.free[k] = prev.free[k] || free[k]
	}
	m.edges[i][j] = prev
}

// path is the steps from the initial state to node i.
func (m *model) path(i int) []*step {
	var out []*step
	for i >= 0 && m.nodes[i].via != nil {
		out = append(out, m.nodes[i].via)
		i = m.nodes[i].parent
	}
	slices.Reverse(out)
	return out
}

func (m *model) report(name string, kind Kind, msg string, at int, last *step) {
	if _, ok := m.found[name]; ok {
		return
	}
	steps := m.path(at)
	if last != nil {
		steps = append(steps, last)
	}
	m.found[name] = &Finding{Name: name, Kind: kind, Message: msg, Trace: m.trace(steps)}
	m.order = append(m.order, name)
}

// scopeEvents are the events a property's scope markers name: its after
// and until events, each then event and the events that disarm it.
func scopeEvents(pr *rules.Property) []string {
	var out []string
	for _, m := range append(slices.Clone(pr.After), pr.Until...) {
		for ; m != nil; m = m.Then {
			if m.Event != "" {
				out = append(out, m.Event)
			}
			out = append(out, m.Unless...)
		}
	}
	return out
}
