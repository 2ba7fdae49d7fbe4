package sweep

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Loader loads the policy again with these params set (as --set gives
// them, on top of whatever the caller fixed); an error is the policy's
// own validation rejecting them, or any other load failure.
type Loader func(set map[string]string) (*rules.Policy, error)

// MaxConfigs bounds the configurations one sweep explores, the values in
// force included: each is a whole exploration. Candidates past it are
// reported as not explored.
const MaxConfigs = 48

// Verdicts of a configuration.
const (
	Proved     = "proved"
	Failed     = "failed"
	Incomplete = "incomplete"
)

// Config is one configuration explored: the values in force with Set
// changed (none for the values in force themselves).
type Config struct {
	Set map[string]string `json:"set"`
	// Candidates are the values it stands for: several candidates can
	// load as the same configuration.
	Candidates []Candidate `json:"candidates,omitempty"`
	Verdict    string      `json:"verdict"`
	// Idle names the rules that never fire and the values never held at
	// this configuration only: warnings here, not findings.
	Idle   []string       `json:"idle,omitempty"`
	Result *verify.Result `json:"result"`
}

// Rejected is a candidate not explored: the policy's validation rejects
// it (Reason is its message), or MaxConfigs was reached.
type Rejected struct {
	Candidate
	Reason string `json:"reason"`
}

// Result is a sweep's outcome.
type Result struct {
	Policy string `json:"policy"`
	// Configs: the values in force first, then one per distinct
	// configuration, in the order of Candidates.
	Configs  []Config   `json:"configs"`
	Outside  []Rejected `json:"outside_validation,omitempty"`
	Unproved []Rejected `json:"not_explored,omitempty"`
}

// Run explores p at the values in force and at each candidate value of
// each param not in fixed, one param at a time, the others as in force.
// A cross-param constraint (notice < warning < force) is the policy's
// validation's: a value it rejects with the neighbours in force is
// reported outside validation, and the neighbour's own candidates give
// the other side of it.
func Run(p *rules.Policy, load Loader, fixed map[string]bool, opts verify.Options) *Result {
	res := &Result{Policy: p.Name}
	seen := map[string]int{}
	res.Configs = append(res.Configs, Config{Set: map[string]string{}, Result: verify.Check(p, opts)})
	seen[configKey(p)] = 0
	for _, c := range Candidates(p, fixed) {
		q, err := load(map[string]string{c.Param: c.Value})
		if err != nil {
			res.Outside = append(res.Outside, Rejected{Candidate: c, Reason: firstLine(err.Error())})
			continue
		}
		k := configKey(q)
		if i, ok := seen[k]; ok {
			res.Configs[i].Candidates = append(res.Configs[i].Candidates, c)
			continue
		}
		if len(res.Configs) >= MaxConfigs {
			res.Unproved = append(res.Unproved, Rejected{Candidate: c, Reason: fmt.Sprintf("past the bound of %d configurations", MaxConfigs)})
			continue
		}
		seen[k] = len(res.Configs)
		r := verify.Check(q, opts)
		idle := atOnly(r, c.Param+"="+c.Value)
		res.Configs = append(res.Configs, Config{Set: map[string]string{c.Param: c.Value}, Candidates: []Candidate{c}, Result: r, Idle: idle})
	}
	for i := range res.Configs {
		res.Configs[i].Verdict = verdict(res.Configs[i].Result)
	}
	return res
}

// atOnly turns a moved configuration's dead rules and unreached values
// into warnings: with no cooldown the rules for inside the cooldown never
// fire, which is the setting's doing, not a mistake in the policy; the
// values in force keep them as findings.
func atOnly(r *verify.Result, at string) []string {
	var idle []string
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if f.Kind == verify.KindDeadRule || f.Kind == verify.KindUnreached {
			f.Message += " (at " + at + " only)"
			r.Warnings = append(r.Warnings, f)
			idle = append(idle, f.Name)
			continue
		}
		kept = append(kept, f)
	}
	r.Findings = kept
	return idle
}

func verdict(r *verify.Result) string {
	switch {
	case len(r.Findings) > 0:
		return Failed
	case r.Incomplete:
		return Incomplete
	}
	return Proved
}

// configKey names a loaded policy's param values: two candidates that
// load alike (1e3 and 1000) are one configuration.
func configKey(p *rules.Policy) string {
	var b strings.Builder
	for _, x := range p.Params {
		fmt.Fprintf(&b, "%s=%s;", x.Name, valueText(x.Value))
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Count is how many configurations have each verdict.
func (r *Result) Count() (proved, failed, incomplete int) {
	for _, c := range r.Configs {
		switch c.Verdict {
		case Proved:
			proved++
		case Failed:
			failed++
		default:
			incomplete++
		}
	}
	return
}

// OK reports whether every configuration explored was proved.
func (r *Result) OK() bool {
	_, f, i := r.Count()
	return f == 0 && i == 0
}

// SetText writes a configuration's params as --set would: "(the values
// in force)" for none.
func (c *Config) SetText() string {
	if len(c.Set) == 0 {
		return "(the values in force)"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c.Set)) {
		parts = append(parts, k+"="+c.Set[k])
	}
	return strings.Join(parts, " ")
}

// WriteText writes the sweep: the full result of each configuration that
// was not proved (its findings and counterexamples, whose run blocks set
// its params), then one line per configuration and each value not
// explored.
func (r *Result) WriteText(w io.Writer) {
	for _, c := range r.Configs[1:] {
		if c.Verdict != Proved {
			fmt.Fprintf(w, "--- %s at %s\n", r.Policy, c.SetText())
			c.Result.WriteText(w)
		}
	}
	proved, failed, incomplete := r.Count()
	fmt.Fprintf(w, "params range of %s: %d configurations, one param moved at a time from the values in force: %d proved, %d failed, %d incomplete\n", r.Policy, len(r.Configs), proved, failed, incomplete)
	for _, c := range r.Configs {
		var why []string
		for _, x := range c.Candidates {
			why = append(why, x.Why...)
		}
		line := fmt.Sprintf("  %-10s %s", c.Verdict, c.SetText())
		if len(why) > 0 {
			line += "  (" + strings.Join(uniq(why), "; ") + ")"
		}
		if len(c.Idle) > 0 {
			line += "; here only: " + strings.Join(c.Idle, ", ")
		}
		fmt.Fprintln(w, line)
	}
	for _, x := range r.Outside {
		fmt.Fprintf(w, "  %-10s %s=%s: %s\n", "outside", x.Param, x.Value, x.Reason)
	}
	for _, x := range r.Unproved {
		fmt.Fprintf(w, "  %-10s %s=%s: %s\n", "skipped", x.Param, x.Value, x.Reason)
	}
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
