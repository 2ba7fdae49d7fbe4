package verify

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// The facts the host model decides rather than the domains.
const (
	factWindow = "window_id"
	factNow    = "now_ms"
)

const declared = "declared by the policy's verify block"

// maxProbe bounds the search for a numeric threshold: well above any
// context window a model has.
const maxProbe = 1 << 24

// domains are the finite sets of values each fact takes, derived from the
// policy's expressions, and how each was found (for the report).
type domains struct {
	// values per fact name (common and event facts share one namespace,
	// overridden per event by "event.fact" keys in perEvent).
	values   map[string][]any
	perEvent map[string][]any // "command.args" -> values
	how      map[string]string
	// read lists, per event, the facts some expression on that event reads.
	read map[string][]string
	// ruleFacts are the facts each rule reads; propFacts, per event, those
	// the properties read on it. A state reads only the facts of the rules
	// its enum values let fire, so the events from it vary only those.
	ruleFacts map[*rules.CompiledRule]map[string]bool
	propFacts map[string]map[string]bool
	// idFacts are int facts compared for equality with state (attempt):
	// their values come from what the state holds.
	idFacts map[string]bool
	// dynamic lists, per int fact, the comparisons whose threshold moves
	// with the state (a saved force limit moves the token threshold): the
	// exploration finds their thresholds again in each state, from the
	// values of the slots they read.
	dynamic map[string][]dynCompare
	ev      *evaluator
	an      *analyzer
	// dynCache holds the thresholds found, by fact and slot values.
	dynCache map[string]*dynEntry
	// cond holds, per int fact, the thresholds that hold for one
	// combination of other facts only, and free those that hold for every
	// event (and the default): an event is tried with a value of the fact
	// only where it is interesting for that event's other facts.
	cond map[string][]condDomain
	free map[string]map[float64]bool
}

// dynEntry is the moving thresholds of a fact in one state.
type dynEntry struct {
	free map[float64]bool
	cond []condDomain
	all  []float64
}

type dynCompare struct {
	c     *ast.BinaryNode
	slots []int // indexes of the slots it reads
}

// exprInfo is what one expression source tells about facts.
type exprInfo struct {
	facts   []string // event.X read, including through derived values
	states  []string // state.X read, including through derived values
	compare []*ast.BinaryNode
	strLits map[string][]string // fact -> string literals it is compared with
	eqState map[string]bool     // facts compared with ==/!= against state
}

type analyzer struct {
	p       *rules.Policy
	derived map[string]*exprInfo
	cache   map[string]*exprInfo
}

func parse(src string) (ast.Node, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, err
	}
	return tree.Node, nil
}

func (a *analyzer) info(src string) *exprInfo {
	if x, ok := a.cache[src]; ok {
		return x
	}
	x := &exprInfo{strLits: map[string][]string{}, eqState: map[string]bool{}}
	a.cache[src] = x
	node, err := parse(src)
	if err != nil {
		return x
	}
	seen := map[string]bool{}
	addFact := func(f string) {
		if !seen[f] {
			seen[f] = true
			x.facts = append(x.facts, f)
		}
	}
	seenState := map[string]bool{}
	addState := func(s string) {
		if !seenState[s] {
			seenState[s] = true
			x.states = append(x.states, s)
		}
	}
	ast.Walk(&node, visitor(func(n ast.Node) {
		switch n := n.(type) {
		case *ast.MemberNode:
			if f, ok := eventFact(n); ok {
				addFact(f)
			}
			if s, ok := stateSlot(n); ok {
				addState(s)
			}
		case *ast.IdentifierNode:
			if d, ok := a.derived[n.Value]; ok {
				for _, f := range d.facts {
					addFact(f)
				}
				for _, s := range d.states {
					addState(s)
				}
			}
		case *ast.BinaryNode:
			switch n.Operator {
			case "<", "<=", ">", ">=", "==", "!=":
				x.compare = append(x.compare, n)
			}
			switch n.Operator {
			case "==", "!=", "in":
				for _, pair := range [][2]ast.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
					f, ok := eventFact(pair[0])
					if !ok {
						continue
					}
					switch o := pair[1].(type) {
					case *ast.StringNode:
						x.strLits[f] = append(x.strLits[f], o.Value)
					case *ast.ArrayNode:
						for _, e := range o.Nodes {
							if s, ok := e.(*ast.StringNode); ok {
								x.strLits[f] = append(x.strLits[f], s.Value)
							}
						}
					default:
						if n.Operator != "in" && mentionsState(pair[1]) {
							x.eqState[f] = true
						}
					}
				}
			}
		}
	}))
	return x
}

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }

func eventFact(n ast.Node) (string, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return "", false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "event" {
		return "", false
	}
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

func mentionsState(n ast.Node) bool {
	found := false
	ast.Walk(&n, visitor(func(n ast.Node) {
		if m, ok := n.(*ast.MemberNode); ok {
			if id, ok := m.Node.(*ast.IdentifierNode); ok && id.Value == "state" {
				found = true
			}
		}
	}))
	return found
}

// ruleSources lists the expression sources a compiled rule evaluates.
func ruleSources(cr *rules.CompiledRule) []string {
	var out []string
	if cr.When != nil {
		out = append(out, cr.When.Source)
	}
	for _, s := range cr.Set {
		out = append(out, s.Prog.Source)
	}
	for _, e := range cr.Effects {
		for _, a := range e.Args {
			if a.Prog.Const == nil {
				out = append(out, a.Prog.Source)
			}
		}
	}
	return out
}

// deriveDomains walks every expression of the policy (re-parsed from its
// source) and builds the fact domains.
func deriveDomains(p *rules.Policy, initial []lang.Value) (*domains, error) {
	a := &analyzer{p: p, derived: map[string]*exprInfo{}, cache: map[string]*exprInfo{}}
	for _, d := range p.Derived {
		if d.Prog != nil {
			a.derived[d.Name] = a.info(d.Prog.Source)
		}
	}
	dm := &domains{values: map[string][]any{}, perEvent: map[string][]any{}, how: map[string]string{}, read: map[string][]string{}, idFacts: map[string]bool{},
		dynamic: map[string][]dynCompare{}, dynCache: map[string]*dynEntry{}, an: a, cond: map[string][]condDomain{}, free: map[string]map[float64]bool{},
		ruleFacts: map[*rules.CompiledRule]map[string]bool{}, propFacts: map[string]map[string]bool{}}
	var all []*exprInfo
	// tiedOnly are the event facts read only because a fact a host sends
	// with them is (coupled): the sampling says so.
	tiedOnly := map[string]bool{}
	// byEvent holds the expressions evaluated on each event: an event's
	// own string fact is tried with the literals compared on that event
	// only (a tool name is not tried as a command name).
	byEvent := map[string][]*exprInfo{}
	var always []string
	for _, pr := range p.Properties {
		if pr.Always != nil {
			always = append(always, a.info(pr.Always.Source).facts...)
		}
	}
	for _, plan := range p.Plans {
		read := map[string]bool{}
		for _, pg := range plan.Groups {
			for _, cr := range pg.Rules {
				rf := map[string]bool{}
				for _, src := range ruleSources(cr) {
					x := a.info(src)
					all = append(all, x)
					byEvent[plan.Event.Name] = append(byEvent[plan.Event.Name], x)
					for _, f := range x.facts {
						read[f], rf[f] = true, true
					}
				}
				dm.ruleFacts[cr] = rf
			}
		}
		pf := map[string]bool{}
		for _, f := range always {
			pf[f] = true
		}
		for _, pr := range p.Properties {
			for _, mk := range pr.ScopeMarkers() {
				if mk.Event == plan.Event.Name && mk.When != nil {
					x := a.info(mk.When.Source)
					all = append(all, x)
					byEvent[plan.Event.Name] = append(byEvent[plan.Event.Name], x)
					for _, f := range x.facts {
						pf[f] = true
					}
				}
			}
			for _, conds := range []map[string]*lang.Program{pr.When, pr.CycleEndsWhen, pr.InputWhen} {
				for name, w := range conds {
					if name == "" || name == plan.Event.Name {
						x := a.info(w.Source)
						all = append(all, x)
						byEvent[plan.Event.Name] = append(byEvent[plan.Event.Name], x)
						for _, f := range x.facts {
							pf[f] = true
						}
					}
				}
			}
		}
		for f := range pf {
			read[f] = true
		}
		// Facts a host sends only together (consistent, coupled) are read
		// together: a turn_end's outcome read alone would be tried as
		// "error" with the error kind at its default "", which no host
		// sends, and every failed turn would be dropped without a word
		// although the rules for failed turns read the outcome. The tied
		// fact takes its domain below: for the error kind, every kind the
		// contract lists, since each is a turn a host reports and classes
		// of instances that read alike share one decision where no guard
		// tells the kinds apart.
		for _, g := range coupled[plan.Event.Name] {
			if slices.ContainsFunc(g, func(f string) bool { return read[f] }) {
				for _, f := range g {
					if !read[f] {
						read[f] = true
						tiedOnly[plan.Event.Name+"."+f] = true
					}
				}
			}
		}
		dm.propFacts[plan.Event.Name] = pf
		for _, f := range plan.Facts {
			if read[f.Name] {
				dm.read[plan.Event.Name] = append(dm.read[plan.Event.Name], f.Name)
			}
		}
	}
	for _, pr := range p.Properties {
		if pr.Always != nil {
			all = append(all, a.info(pr.Always.Source))
		}
	}
	for _, x := range a.derived {
		all = append(all, x)
	}
	// Each expression once (a source shared by many rules is one).
	seenInfo := map[*exprInfo]bool{}
	all = slices.DeleteFunc(all, func(x *exprInfo) bool {
		dup := seenInfo[x]
		seenInfo[x] = true
		return dup
	})
	var shared []*exprInfo // derived values and invariants: read on any event
	for _, x := range a.derived {
		shared = append(shared, x)
	}
	for _, pr := range p.Properties {
		if pr.Always != nil {
			shared = append(shared, a.info(pr.Always.Source))
		}
	}
	for _, x := range all {
		for f := range x.eqState {
			dm.idFacts[f] = true
		}
	}
	ev := newEvaluator(p, initial)
	dm.ev = ev
	largest, byRemaining, narrowed := windowsByRemaining(p)
	if narrowed {
		ev.base[factContextWindow] = []float64{largest}
	}
	initialState := ev.stateMap(initial)
	// Common facts have one domain; an event's own facts one per event
	// ("command.args"), since two events may give a name two types.
	type target struct {
		key string
		f   contract.Fact
	}
	var targets []target
	for _, f := range contract.CommonFacts {
		targets = append(targets, target{f.Name, f})
	}
	for _, e := range contract.Events {
		for _, f := range e.Facts {
			targets = append(targets, target{e.Name + "." + f.Name, f})
		}
	}
	for _, t := range targets {
		name, f := t.f.Name, t.f
		var vals []any
		var how string
		switch {
		case name == factWindow:
			how = "the window the host is in: after a committed reset, a new one"
		case name == factNow:
			how = "the host clock: it stays, or moves to 1 ms before and to each deadline a time slot holds"
		case f.Type == contract.Bool:
			vals, how = []any{false, true}, "both ways"
		case len(f.Enum) > 0:
			vals, how = toAny(f.Enum), "every value the contract allows"
		case f.Type == contract.String:
			lits := []string{fmt.Sprint(f.Default)}
			from := all
			if ev, own := strings.CutSuffix(t.key, "."+name); own {
				from = append(slices.Clone(byEvent[ev]), shared...)
			}
			compared := false
			for _, x := range from {
				lits = append(lits, x.strLits[name]...)
				compared = compared || slices.Contains(x.strLits[name], lits[0])
			}
			how = "the default and the literals it is compared with"
			// The default stands for every value no expression names, so
			// "!= ''" holds of it only where '' is not the default. Compared
			// with its own default, the fact gets one value none of the
			// literals is: else a guard "event.error != ''" never holds and
			// its rule is reported dead, though a host sends errors with a
			// message.
			if compared {
				lits = append(lits, unnamed(lits))
				how += ", and one none of them is"
			}
			vals = toAny(uniqSorted(lits))
		case f.Type == contract.Int && echoed(t.key):
			how = echoHow(t.key)
		case f.Type == contract.Int && dm.idFacts[name]:
			how = "the ids the state holds, one before and one after them"
		case f.Type == contract.Int:
			found := map[float64]bool{float64(f.Default.(int64)): true}
			for _, x := range all {
				for _, c := range x.compare {
					cd, ok := ev.thresholdsBy(c, name, a, initialState)
					if ok {
						for _, vs := range cd.by {
							for _, v := range vs {
								found[v] = true
							}
						}
						if len(cd.others) > 0 {
							dm.cond[name] = append(dm.cond[name], cd)
						} else {
							if dm.free[name] == nil {
								dm.free[name] = map[float64]bool{}
							}
							for _, v := range cd.by[""] {
								dm.free[name][v] = true
							}
						}
					}
					if ci := a.info(c.String()); len(ci.states) > 0 && slices.Contains(ci.facts, name) {
						dc := dynCompare{c: c}
						for i, sl := range p.Slots {
							if slices.Contains(ci.states, sl.Name) && !sl.IsEnum() {
								dc.slots = append(dc.slots, i)
							}
						}
						if len(dc.slots) > 0 && !slices.ContainsFunc(dm.dynamic[name], func(o dynCompare) bool { return o.c.String() == c.String() }) {
							dm.dynamic[name] = append(dm.dynamic[name], dc)
						}
					}
				}
			}
			if dm.free[name] == nil {
				dm.free[name] = map[float64]bool{}
			}
			dm.free[name][float64(f.Default.(int64))] = true
			vals = sortedNums(found)
			how = "the default only: no guard compares it"
			if len(found) > 1 {
				how = "the default, and each side of every threshold it is compared with (params in force, the other int facts at their default and declared values)"
			}
			if len(dm.dynamic[name]) > 0 {
				how += "; thresholds that move with the state are found again in each state explored (values below: the initial state's)"
			}
		default:
			vals, how = []any{nil}, "the default only (an object)"
		}
		if strings.Contains(t.key, ".") {
			dm.perEvent[t.key] = vals
		} else {
			dm.values[t.key] = vals
		}
		dm.how[t.key] = how
	}
	if v := p.Verify; v != nil {
		for k, vals := range v.Domains {
			if strings.Contains(k, ".") {
				dm.perEvent[k] = vals
			} else {
				dm.values[k] = vals
			}
			dm.how[k] = declared
		}
	}
	for k := range tiedOnly {
		if dm.how[k] != declared {
			dm.how[k] += "; no expression reads it: varied with the facts a host sends it with"
		}
	}
	dm.tie()
	if narrowed {
		dm.values[factContextWindow] = []any{largest}
		dm.how[factContextWindow] = byRemaining
	}
	return dm, nil
}

// tie makes the domains of the facts a host sends only together
// (consistent, coupled) agree. The contract's own domains do; a domain the
// verify block declares may not — outcome "error" with the error kind
// declared as [""] only — and then every event with that value would be
// dropped as one no host sends, its turns unexplored without a word.
// Instead the first values the contract allows that a host sends with it
// are added to the others' domains, and the sampling says so. The tied
// facts are strings and bools, so the how that no longer reads exactly
// "declared" changes no threshold or id sampling (those read int facts).
func (dm *domains) tie() {
	for _, event := range slices.Sorted(maps.Keys(coupled)) {
		def, _ := contract.LookupEvent(event)
		for _, g := range coupled[event] {
			for _, f := range g {
				vals, _ := dm.domain(event, f)
				for _, v := range vals {
					if dm.agree(def, g, f, v, false) != nil {
						continue
					}
					for o, x := range dm.agree(def, g, f, v, true) {
						key := event + "." + o
						how, ok := dm.how[key]
						if !ok {
							how = dm.how[o]
						}
						have, _ := dm.domain(event, o)
						if !slices.Contains(have, x) {
							dm.perEvent[key] = append(slices.Clone(have), x)
							dm.how[key] = how + fmt.Sprintf("; and %v, which a host sends with %s = %v", x, f, v)
						}
					}
				}
			}
		}
	}
}

// agree finds values of the facts of g other than f that a host sends
// with f = v: from their domains, or with whole from every value the
// contract allows them; nil when there are none.
func (dm *domains) agree(def *contract.Event, g []string, f string, v any, whole bool) map[string]any {
	facts := map[string]any{"event": def.Name, f: v}
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(g) {
			return consistent(facts)
		}
		if g[i] == f {
			return try(i + 1)
		}
		vals, _ := dm.domain(def.Name, g[i])
		if whole {
			vals = contractValues(def, g[i])
		}
		for _, x := range vals {
			facts[g[i]] = x
			if try(i + 1) {
				return true
			}
		}
		return false
	}
	if !try(0) {
		return nil
	}
	delete(facts, "event")
	delete(facts, f)
	return facts
}

// contractValues are the values the contract allows fact of def.
func contractValues(def *contract.Event, fact string) []any {
	for _, x := range def.AllFacts() {
		switch {
		case x.Name != fact:
		case x.Type == contract.Bool:
			return []any{false, true}
		case len(x.Enum) > 0:
			return toAny(x.Enum)
		default:
			return []any{x.Default}
		}
	}
	return nil
}

// domain returns the values fact takes on event.
func (d *domains) domain(event, fact string) ([]any, bool) {
	if v, ok := d.perEvent[event+"."+fact]; ok {
		return v, true
	}
	v, ok := d.values[fact]
	return v, ok
}

// factTypes maps each fact name to its contract declaration, made once:
// the threshold search asks it per comparison and fact.
var factTypes = sync.OnceValue(func() map[string]contract.Fact {
	out := map[string]contract.Fact{}
	for _, e := range contract.Events {
		for _, f := range e.AllFacts() {
			if prev, ok := out[f.Name]; ok && prev.Type != f.Type {
				continue // the same name with two types: first wins (none today)
			}
			out[f.Name] = f
		}
	}
	return out
})

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func uniqSorted(xs []string) []string {
	sort.Strings(xs)
	return slices.Compact(xs)
}

func sortedNums(m map[float64]bool) []any {
	var out []float64
	for v := range m {
		if v >= 0 && v <= maxProbe {
			out = append(out, v)
		}
	}
	sort.Float64s(out)
	return toAny(out)
}

func toFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// unnamed is a string none of lits is: "other", or "other" and a number.
func unnamed(lits []string) string {
	v := "other"
	for i := 2; slices.Contains(lits, v); i++ {
		v = fmt.Sprintf("other%d", i)
	}
	return v
}
