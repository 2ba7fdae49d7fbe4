package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Options bound the exploration.
type Options struct {
	// Depth bounds the length of explored event sequences; 0: no bound.
	Depth int
	// MaxStates bounds the abstract states explored; 0: DefaultMaxStates.
	MaxStates int
	// Observe, when set, sees every transition explored: the slots before
	// and after (by slot index; enum slots hold their value's index), the
	// event's name and the rules that fired. The state graph uses it.
	Observe func(from, to []lang.Value, event string, rules []string)
}

// DefaultMaxStates bounds an exploration whose depth is not bounded.
const DefaultMaxStates = 200000

type model struct {
	p          *rules.Policy
	eng        *engine.Engine
	sess       *engine.Session
	dom        *domains
	shape      shape
	eventNames []string
	evCache    map[string][]instance
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
	orderSeen   map[string]bool
	warnings    []Finding
	opts        Options
	bounded     bool
	incomplete  bool // the state bound, not --depth, cut the exploration
}

type edge struct {
	st        *step
	continues []bool // per property
	free      []bool // per property: an event without new input leads here
}

// Check explores every state policy p can reach and checks its properties
// and the built-in checks. It is pure: no clock, files or environment.
func Check(p *rules.Policy, opts Options) *Result {
	if opts.MaxStates == 0 {
		opts.MaxStates = DefaultMaxStates
	}
	m := &model{p: p, eng: engine.New(p), evCache: map[string][]instance{}, props: p.Properties,
		index: map[string]int{}, orderSeen: map[string]bool{}, edges: map[int]map[int]edge{}, fired: map[string]bool{}, found: map[string]*Finding{}}
	m.opts = opts
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
	}
	for _, e := range contract.Events {
		if handled[e.Name] {
			m.eventNames = append(m.eventNames, e.Name)
		}
	}
	for _, s := range p.Slots {
		if s.IsEnum() {
			m.reached = append(m.reached, map[int]bool{})
		} else {
			m.reached = append(m.reached, nil)
		}
	}
	root := &node{vals: initial, window: 1, counts: make([]int, len(p.Properties)), parent: -1}
	m.add(root)
	if in, err := instanceOf(&contract.Events[0], map[string]any{"event": contract.Events[0].Name}); err == nil {
		m.checkAlways(0, root, in, nil)
	}
	for i := 0; i < len(m.nodes); i++ {
		if len(m.index) >= opts.MaxStates {
			m.bounded, m.incomplete = true, true
			break
		}
		n := m.nodes[i]
		if opts.Depth > 0 && n.depth >= opts.Depth {
			m.bounded = true
			continue
		}
		m.expand(i, n)
	}
	m.checkLoops()
	return m.result()
}

func (m *model) add(n *node) (int, bool) {
	k := m.key(n)
	if i, ok := m.index[k]; ok {
		return i, false
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

func (m *model) expand(i int, n *node) {
	for _, t := range m.deadlines(n) {
		next := &node{vals: n.vals, window: n.window, now: t, counts: n.counts, parent: i, via: &step{now: t, delta: t - n.now}, depth: n.depth + 1}
		m.transitions++
		j, _ := m.add(next)
		m.edge(i, j, next.via, n, nil)
	}
	for _, in := range m.events(n) {
		m.sess.SetValues(n.vals)
		d, err := m.sess.Decide(in.ev)
		m.transitions++
		st := &step{event: in.facts, now: n.now, idBase: m.maxID(n)}
		if err != nil {
			m.report("runtime error", KindRuntime, fmt.Sprintf("a reachable decision fails at run time: %v", err), i, st)
			continue
		}
		// The decision's slices are the session's buffers: read them only
		// until the next Decide (a trace replays the events instead).
		st.rules, st.effects = d.Rules, d.Effects
		for _, r := range d.Rules {
			m.fired[r] = true
		}
		m.checkOrder(i, n, in, st.rules, st)
		m.buf = m.sess.Values(m.buf[:0])
		post, changed := n.vals, !slices.Equal(m.buf, n.vals)
		if changed {
			post = slices.Clone(m.buf)
		}
		if m.opts.Observe != nil {
			m.opts.Observe(n.vals, post, in.ev.Name(), st.rules)
		}
		resets := false
		for _, e := range d.Effects {
			if e.Name == "commit_reset" || e.Name == "provide_reset" {
				resets = true
			}
		}
		name := in.ev.Name()
		reason, _ := in.ev.Fact("reason")
		newSession := name == "session_start" && reason != "startup" && reason != "reload"
		// The host's answers: a reset it carries out opens a new window; it
		// may also fail to build the boundary and stay where it is.
		outcomes := []bool{false}
		if resets {
			outcomes = []bool{false, true}
		}
		for _, failed := range outcomes {
			s := *st
			s.failed = failed
			next := &node{vals: post, window: n.window, now: n.now, parent: i, via: &s, depth: n.depth + 1}
			if (resets && !failed) || newSession {
				next.window = n.window + 1
				s.newWindow = true
			}
			m.checkNever(i, n, in, &s)
			next.counts = m.count(i, n, in, &s, next.window != n.window)
			m.checkAlways(i, next, in, &s)
			j := i
			if changed || next.window != n.window || !slices.Equal(next.counts, n.counts) {
				j, _ = m.add(next)
			}
			m.edge(i, j, &s, n, &in)
			s.rules, s.effects = nil, nil
		}
	}
}

// noneAssert is a test-file condition: the last decision has no effect
// the property is about.
func noneAssert(pr *rules.Property) string {
	cond := ".effect == '" + pr.Effect + "'"
	for _, k := range slices.Sorted(maps.Keys(pr.With)) {
		switch v := pr.With[k].(type) {
		case string:
			cond += " && ." + k + " == '" + v + "'"
		default:
			cond += fmt.Sprintf(" && .%s == %v", k, v)
		}
	}
	return "none(last.effects, " + cond + ")"
}

// matches reports whether an effect is the one a property is about.
func matches(pr *rules.Property, e engine.Effect) bool {
	if e.Name != pr.Effect {
		return false
	}
	for k, want := range pr.With {
		got, ok := e.Arg(k)
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			return false
		}
	}
	return true
}

func (m *model) checkNever(i int, n *node, in instance, st *step) {
	for _, pr := range m.props {
		if pr.Kind != rules.Never || (len(pr.On) > 0 && !slices.Contains(pr.On, in.ev.Name())) {
			continue
		}
		if pr.When != nil {
			w := pr.When[in.ev.Name()]
			if w == nil {
				w = pr.When[""]
			}
			if w == nil {
				continue
			}
			f := lang.NewFrame(in.frame, n.vals)
			if !w.B(&f) || f.Err != nil {
				continue
			}
		}
		for _, e := range st.effects {
			if matches(pr, e) {
				m.report(pr.Name, KindProperty, fmt.Sprintf("%s yields %s", in.ev.Name(), e.Name), i, st)
				m.found[pr.Name].Assert = noneAssert(pr)
				break
			}
		}
	}
}

// count updates the at_most counters after a decision; a reset the host
// could not carry out does not count.
func (m *model) count(i int, n *node, in instance, st *step, newWindow bool) []int {
	out := slices.Clone(n.counts)
	for pi, pr := range m.props {
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
			m.report(pr.Name, KindProperty, fmt.Sprintf("%d × %s in one %s", out[pi], pr.Effect, pr.Per), i, st)
			m.found[pr.Name].Assert = noneAssert(pr)
			out[pi] = pr.Count // keep exploring from a bounded counter
		}
	reset:
		if (pr.Per == "window" && newWindow) || (pr.Per == "cycle" && m.endsCycle(pr, n, in)) {
			out[pi] = 0
		}
	}
	return out
}

func (m *model) endsCycle(pr *rules.Property, n *node, in instance) bool {
	return eventHolds(pr.CycleEndsOn, pr.CycleEndsWhen, n, in)
}

// eventHolds: the event is one of names and its condition, if any, holds
// on the state before it.
func eventHolds(names []string, conds map[string]*lang.Program, n *node, in instance) bool {
	if !slices.Contains(names, in.ev.Name()) {
		return false
	}
	w := conds[in.ev.Name()]
	if w == nil {
		return true
	}
	f := lang.NewFrame(in.frame, n.vals)
	return w.B(&f) && f.Err == nil
}

func (m *model) checkAlways(i int, next *node, in instance, st *step) {
	for _, pr := range m.props {
		if pr.Kind != rules.Always || pr.Always == nil {
			continue
		}
		f := lang.NewFrame(in.frame[:len(contract.CommonFacts)], next.vals)
		ok := pr.Always.B(&f)
		if f.Err != nil || !ok {
			msg := "the invariant is false after the event"
			if f.Err != nil {
				msg = "the invariant cannot be evaluated: " + f.Err.Error()
			}
			if st == nil {
				msg += " (in the initial state)"
			}
			m.report(pr.Name, KindProperty, msg, i, st)
		}
	}
}

// isInput: an event that brings new input ends a no_loop cycle.
func isInput(pr *rules.Property, n *node, in *instance) bool {
	if in == nil {
		return false // the clock moved
	}
	if ui, _ := in.facts["user_input"].(bool); ui && in.ev.Name() == "request" {
		return true
	}
	return eventHolds(pr.InputEvents, pr.InputWhen, n, *in)
}

// edge records a transition between abstract states for the no_loop
// properties: per property, whether some event without new input leads
// from i to j, and whether one of those emits the effect.
func (m *model) edge(i, j int, st *step, n *node, in *instance) {
	var cont, free []bool
	any := false
	for _, pr := range m.props {
		c, f := false, false
		if pr.Kind == rules.NoLoop && !isInput(pr, n, in) {
			any, f = true, true
			for _, e := range st.effects {
				if matches(pr, e) {
					c = true
				}
			}
		}
		cont, free = append(cont, c), append(free, f)
	}
	if !any {
		return
	}
	if m.edges[i] == nil {
		m.edges[i] = map[int]edge{}
	}
	prev, ok := m.edges[i][j]
	if !ok {
		m.edges[i][j] = edge{st: st, continues: cont, free: free}
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

func (m *model) result() *Result {
	r := &Result{Policy: m.p.Name, States: len(m.nodes), Transitions: m.transitions, Bounded: m.bounded, Incomplete: m.incomplete, Warnings: m.warnings}
	for _, pr := range m.props {
		if f, ok := m.found[pr.Name]; ok {
			r.Findings = append(r.Findings, *f)
		} else {
			r.Holds = append(r.Holds, pr.Name)
		}
	}
	if f, ok := m.found["runtime error"]; ok {
		r.Findings = append(r.Findings, *f)
	}
	var unfired, unreached []string
	if v := m.p.Verify; v != nil {
		unfired, unreached = v.Unfired, v.Unreached
	}
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
		r.Findings = append(r.Findings, Finding{Name: "dead rule " + rule.Name, Kind: KindDeadRule, Message: m.whyDead(rule)})
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
			r.Findings = append(r.Findings, Finding{Name: "unreached " + name, Kind: KindUnreached, Message: fmt.Sprintf("no reachable state has %s = %q", s.Name, v)})
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

// whyDead names the earlier rule of the group that always wins where the
// rule would match, by asking the engine to explain every decision again.
func (m *model) whyDead(rule *rules.Rule) string {
	shadow := map[string]int{}
	for i, n := range m.nodes {
		if i > 20000 {
			break
		}
		for _, in := range m.events(n) {
			if !slices.Contains(rule.On, in.ev.Name()) {
				continue
			}
			m.sess.SetValues(n.vals)
			d, err := m.sess.DecideExplain(in.ev)
			if err != nil {
				continue
			}
			for _, c := range d.Explain {
				if c.Rule == rule.Name && strings.HasPrefix(c.Reason, "not reached: ") {
					by := strings.TrimPrefix(c.Reason, "not reached: ")
					by = by[:strings.IndexByte(by+" ", ' ')]
					if m.whenHolds(rule, n, in) {
						shadow[by]++
					}
				}
			}
		}
	}
	if len(shadow) > 0 {
		names := slices.Sorted(maps.Keys(shadow))
		return fmt.Sprintf("rule %s never fires: where it would match, an earlier rule of group %s fires first (%s)", rule.Name, rule.Group.Name, strings.Join(names, ", "))
	}
	return fmt.Sprintf("rule %s never fires: its from and when never hold together in a reachable state", rule.Name)
}

// whenHolds evaluates the rule's from and guard on the event in node n.
func (m *model) whenHolds(rule *rules.Rule, n *node, in instance) bool {
	for _, pg := range m.p.PlanFor(in.ev.Name()).Groups {
		for _, cr := range pg.Rules {
			if cr.Rule == rule {
				return m.matchesAt(cr, n, in)
			}
		}
	}
	return false
}
