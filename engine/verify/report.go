package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// Kind says what a finding is about.
type Kind string

const (
	KindProperty  Kind = "property"
	KindRuntime   Kind = "runtime_error"
	KindDeadRule  Kind = "dead_rule"
	KindUnreached Kind = "unreached_value"
	// KindOrder is a warning: two rules of a group both match and move a
	// slot to different values, and only file order picks one.
	KindOrder Kind = "file_order"
)

// Result is what one exploration found.
type Result struct {
	Policy      string `json:"policy"`
	States      int    `json:"states"`
	Transitions int    `json:"transitions"`
	// Bounded is set when a bound (--depth, or one of Bound's) cut the
	// exploration: every finding and every "holds" is then within it.
	Bounded bool `json:"bounded"`
	// Incomplete is set when a bound other than --depth cut the
	// exploration (states, transitions, memory, time): the properties were
	// checked on the states explored only, which proves nothing about the
	// rest, so it fails.
	Incomplete bool `json:"incomplete,omitempty"`
	// Bound names the bound that cut the exploration, when one did.
	Bound *Bound `json:"bound,omitempty"`
	// ExactSlots names the slots grown from state that verify keeps exact
	// (their uses allow no sound abstraction); in an incomplete result,
	// only those still taking new values at the deepest level explored,
	// where an exploration that does not end is most likely theirs.
	ExactSlots []string `json:"exact_slots,omitempty"`
	// Params are the param values in force, for which the result holds.
	Params   map[string]any `json:"params,omitempty"`
	Holds    []string       `json:"holds"`
	Findings []Finding      `json:"findings"`
	Expected []string       `json:"expected,omitempty"`
	// Warnings do not fail verification.
	Warnings []Finding `json:"warnings,omitempty"`
	// HiddenWarnings counts, for a policy that uses a built-in, the
	// file-order warnings between the built-in's own rules left out
	// (Options.AllWarnings keeps them).
	HiddenWarnings int        `json:"hidden_warnings,omitempty"`
	Sampling       []Sampling `json:"sampling"`
}

// The bounds an exploration can stop at.
const (
	BoundDepth       = "depth"
	BoundStates      = "states"
	BoundTransitions = "transitions"
	BoundMemory      = "memory"
	BoundTime        = "time"
	// BoundFirstFailure: Options.FailFast stopped at the first failure.
	BoundFirstFailure = "first_failure"
)

// Bound is the bound that cut an exploration: its kind and its value
// (events for depth, a count for states and transitions, estimated bytes
// for memory, seconds for time).
type Bound struct {
	Kind  string  `json:"kind"`
	Limit float64 `json:"limit"`
}

func (b *Bound) String() string {
	switch b.Kind {
	case BoundDepth:
		return fmt.Sprintf("--depth %g: event sequences of at most %g events", b.Limit, b.Limit)
	case BoundStates:
		return fmt.Sprintf("the state limit of %g states", b.Limit)
	case BoundTransitions:
		return fmt.Sprintf("the transition limit of %g decisions", b.Limit)
	case BoundMemory:
		return fmt.Sprintf("the memory limit of %g MiB held (estimated)", b.Limit/(1<<20))
	case BoundTime:
		return fmt.Sprintf("the time limit of %g s", b.Limit)
	case BoundFirstFailure:
		return "the first failing property"
	}
	return b.Kind
}

// OK reports whether every property holds and no check failed.
func (r *Result) OK() bool { return len(r.Findings) == 0 && !r.Incomplete }

// Finding is a property that fails or a built-in check that does, with
// the shortest event sequence that shows it when there is one.
type Finding struct {
	Name    string `json:"name"`
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	// Trace is the counterexample: one event object per line of eval
	// input, from the initial state.
	Trace []TraceStep `json:"trace,omitempty"`
	// LoopStart, for a loop, is the index in Trace where the cycle starts.
	LoopStart int `json:"loop_start,omitempty"`
	// Loop marks a lasso: Trace goes round the cycle from LoopStart and
	// ends with the cycle's first step repeated.
	Loop bool `json:"loop,omitempty"`
	// Assert is the test-file condition the property requires of the
	// counterexample's last decision (or final state), when it has one.
	Assert string `json:"assert,omitempty"`
	// Bounded marks a finding of a cut exploration that is only as true
	// as the bound (a rule not seen firing, a value not seen held).
	Bounded bool `json:"bounded,omitempty"`
	// Params are the param values the counterexample needs that differ
	// from the policy's declared defaults (a --set, a verify block's
	// params), as HCL: its run block sets them, so pasted as printed it
	// fails against the policy it was found in and no other.
	Params map[string]string `json:"params,omitempty"`
}

// TraceStep is one event of a counterexample with what it decided.
type TraceStep struct {
	Event   map[string]any   `json:"event"`
	Rules   []string         `json:"rules"`
	Effects []map[string]any `json:"effects"`
	// HostFailed marks a reset the host could not carry out (it stayed
	// in the same window).
	HostFailed bool `json:"host_failed,omitempty"`
	// Error is the engine's error when the event fails at run time.
	Error string `json:"error,omitempty"`
}

// Sampling says how a fact's values were chosen.
type Sampling struct {
	Fact   string `json:"fact"`
	How    string `json:"how"`
	Values []any  `json:"values,omitempty"`
}

// trace replays steps through a fresh session of the real engine and
// records what it decided. The steps of a loop come from states that are
// equal only in the abstract (another window, a later clock), so the
// window, the clock and ids are rebuilt along the way: the trace is one
// consistent session, exactly what `eval` would decide.
func (m *model) trace(steps []*step) []TraceStep {
	var out []TraceStep
	sess := m.eng.NewSession()
	window, now := 1, int64(0)
	for _, s := range steps {
		facts := s.facts()
		if facts == nil {
			now += s.delta
			continue
		}
		delete(facts, factWindow)
		delete(facts, factNow)
		if window != 1 {
			facts[factWindow] = "w" + strconv.Itoa(window)
		}
		if now != 0 {
			facts[factNow] = now
		}
		base := 0.0
		for i, k := range m.shape.kinds {
			if k == kindID {
				base = max(base, sess.Values(nil)[i].Num)
			}
		}
		for f := range m.dom.idFacts {
			if v, ok := facts[f].(float64); ok {
				facts[f] = base + (v - s.idBase)
			}
		}
		ts := TraceStep{Event: facts, Rules: []string{}, Effects: []map[string]any{}, HostFailed: s.failed}
		if ev, err := engine.NewEvent(facts); err == nil {
			if d, err := sess.Decide(ev); err == nil {
				ts.Rules = append(ts.Rules, d.Rules...)
				for _, e := range d.Effects {
					x := map[string]any{"effect": e.Name}
					for _, a := range e.Args {
						x[a.Name] = a.Value
					}
					ts.Effects = append(ts.Effects, x)
				}
			} else {
				ts.Error = err.Error()
			}
		}
		if s.newWindow {
			window++
		}
		out = append(out, ts)
	}
	return out
}

// EvalLines is the trace as `resetpolicy eval` reads it: one event per
// line, "event" first, then the facts in contract order.
func (f *Finding) EvalLines() string {
	var b strings.Builder
	for _, s := range f.Trace {
		b.WriteString(eventJSON(s.Event))
		b.WriteByte('\n')
	}
	return b.String()
}

func orderedFacts(ev map[string]any) []string {
	name, _ := ev["event"].(string)
	def, ok := contract.LookupEvent(name)
	var keys []string
	if ok {
		for _, f := range def.AllFacts() {
			if _, has := ev[f.Name]; has {
				keys = append(keys, f.Name)
			}
		}
	}
	return keys
}

func eventJSON(ev map[string]any) string {
	var b bytes.Buffer
	b.WriteString(`{"event":`)
	name, _ := json.Marshal(ev["event"])
	b.Write(name)
	for _, k := range orderedFacts(ev) {
		v, _ := json.Marshal(ev[k])
		fmt.Fprintf(&b, ",%q:%s", k, v)
	}
	b.WriteByte('}')
	return b.String()
}

func hclValue(x any) string {
	switch v := x.(type) {
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(x)
}

// RunBlock is the trace as a run for a *.test.hcl file: it replays the
// events and asserts what the property requires of the last decision, so
// the run fails until the policy is fixed and then guards the fix.
func (f *Finding) RunBlock(policy string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# verify %s: %s\n", policy, strings.ReplaceAll(f.Message, "\n", " "))
	fmt.Fprintf(&b, "run %s {\n", strconv.Quote("verify: "+f.Name))
	if len(f.Params) > 0 {
		b.WriteString("  params = {")
		for i, k := range slices.Sorted(maps.Keys(f.Params)) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s = %s", k, f.Params[k])
		}
		b.WriteString(" }\n")
	}
	for i, s := range f.Trace {
		if f.Loop && i == f.LoopStart {
			b.WriteString("  # the cycle starts here and comes back to its start\n")
		}
		if f.Loop && i == len(f.Trace)-1 {
			b.WriteString("  # the cycle's first event once more: it emits the effect again\n")
		}
		fmt.Fprintf(&b, "  event %s {\n", strconv.Quote(s.Event["event"].(string)))
		for _, k := range orderedFacts(s.Event) {
			fmt.Fprintf(&b, "    %s = %s\n", k, hclValue(s.Event[k]))
		}
		b.WriteString("  }\n")
	}
	if f.Assert != "" {
		fmt.Fprintf(&b, "  assert {\n    condition     = %s\n    error_message = %s\n  }\n", strconv.Quote(f.Assert), strconv.Quote(f.Name))
	}
	b.WriteString("}\n")
	return b.String()
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// WriteText prints a result for people.
func (r *Result) WriteText(w io.Writer) {
	for _, h := range r.Holds {
		if r.Bounded {
			fmt.Fprintf(w, "bound %s: %s (no violation within %s; not proved beyond it)\n", r.Policy, h, r.Bound)
			continue
		}
		fmt.Fprintf(w, "ok    %s: %s\n", r.Policy, h)
	}
	for _, e := range r.Expected {
		fmt.Fprintf(w, "ok    %s: %s (expected)\n", r.Policy, e)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "FAIL  %s: %s\n      %s\n", r.Policy, f.Name, f.Message)
		if len(f.Trace) > 0 {
			fmt.Fprintf(w, "      counterexample (%d events; eval input):\n", len(f.Trace))
			for _, line := range strings.Split(strings.TrimRight(f.EvalLines(), "\n"), "\n") {
				fmt.Fprintf(w, "        %s\n", line)
			}
			fmt.Fprintf(w, "      as a test run:\n")
			for _, line := range strings.Split(strings.TrimRight(f.RunBlock(r.Policy), "\n"), "\n") {
				fmt.Fprintf(w, "        %s\n", line)
			}
		}
	}
	for _, f := range r.Warnings {
		fmt.Fprintf(w, "warn  %s: %s\n", r.Policy, f.Message)
		if len(f.Trace) > 0 {
			fmt.Fprintf(w, "      for example after: %s\n", strings.ReplaceAll(strings.TrimSpace(f.EvalLines()), "\n", " "))
		}
	}
	if r.HiddenWarnings > 0 {
		fmt.Fprintf(w, "note  %s: %d file-order warnings between the built-in's own rules not shown (--all-warnings shows them)\n", r.Policy, r.HiddenWarnings)
	}
	sort.SliceStable(r.Sampling, func(i, j int) bool { return r.Sampling[i].Fact < r.Sampling[j].Fact })
	fmt.Fprintf(w, "sampled facts of %s:\n", r.Policy)
	for _, s := range r.Sampling {
		vals := ""
		if len(s.Values) > 0 {
			b, _ := json.Marshal(s.Values)
			vals = " " + string(b)
		}
		fmt.Fprintf(w, "  %-16s %s%s\n", s.Fact, s.How, vals)
	}
	if len(r.Params) > 0 {
		var ps []string
		for _, k := range slices.Sorted(maps.Keys(r.Params)) {
			b, _ := json.Marshal(r.Params[k])
			ps = append(ps, k+"="+string(b))
		}
		fmt.Fprintf(w, "params of %s (the result is for these values): %s\n", r.Policy, strings.Join(ps, " "))
	}
	bound, verb := "", "hold"
	switch {
	case r.Incomplete:
		hint := "declare narrower fact domains in a verify block, or bound it with --depth"
		if len(r.ExactSlots) > 0 {
			hint = "slots " + strings.Join(r.ExactSlots, ", ") + " were still taking new values when it stopped and are kept exact (used other than in comparisons with constants or for equality), so their values may have no end; " + hint
		}
		bound = fmt.Sprintf(" (incomplete: the exploration stopped at %s; the properties were checked on the %d states explored only — %s)", r.Bound, r.States, hint)
		verb = "not violated in those states"
	case r.Bounded:
		bound = fmt.Sprintf(" (bounded by %s: nothing is proved beyond it)", r.Bound)
		verb = "not violated within the bound"
	}
	fmt.Fprintf(w, "%s: %d states, %d transitions, %d properties %s, %d findings, %d warnings%s\n", r.Policy, r.States, r.Transitions, len(r.Holds), verb, len(r.Findings), len(r.Warnings), bound)
}
