package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/engine/sweep"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newVerifyCmd) }

func newVerifyCmd(*viper.Viper) *cobra.Command {
	var sets []string
	var depth int
	var asJSON bool
	var lim verifyLimits
	var paramsMode string
	cmd := &cobra.Command{
		Use:   "verify [POLICY...]",
		Short: "Explore every reachable state of a policy and check its properties",
		Long: `verify explores, breadth-first, every state a policy can reach from its initial
state under every event the host contract allows, and checks the policy's
property blocks and the checks every policy gets: a rule that never fires, an
enum value no state holds, a decision that fails at run time. Facts take
finite domains derived from the policy's guards (the report says how each was
sampled); the host answers as the contract says (a committed reset opens a new
window, the clock moves forward).

A failure prints its shortest counterexample as eval input (one {"event": …}
per line) and as a run block for a *.test.hcl file, whose assert fails until
the policy is fixed.

The exploration is bounded by states, transitions and estimated memory held,
counts that give the same verdict on an idle and on a busy machine; --timeout
adds a budget of CPU time, off by default. A run cut by any of them is
incomplete, naming the bound: neither verified nor failed (--depth is the
author's bound: what it finds holds within it only, and says so). The result
is for the param values in force, which it prints; --params range also
explores each param over the range its validation allows (its boundaries and
the values its guards compare it with, one param at a time) and lists each
configuration with its verdict.

With no arguments it verifies the policy in force in this directory, as Pi
runs it (.resetpolicy.hcl or .pi/resetpolicy.hcl, the project config, the
user config, RESETPOLICY_*, --set; see 'resetpolicy config'), and says which
it used.
Exit status: 0 when everything holds, 1 on a finding, 2 for a usage error,
3 when an exploration was cut by a bound before it found anything (incomplete).`,
		Example: `  resetpolicy verify wipe_memory
  resetpolicy verify .pi/resetpolicy.hcl --set warning_runway=8192
  resetpolicy verify --json autocompacter
  resetpolicy verify --params range wipe_memory`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if depth < 0 {
				return usage("--depth %d: want 0 (no bound) or more", depth)
			}
			set, err := parseSet(sets)
			if err != nil {
				return err
			}
			var inForce *settings.Resolved
			if len(args) == 0 {
				// The policy in force here, as Pi runs it.
				if inForce, err = policyInForce(cmd, "", "", set); err != nil {
					return err
				}
				if err := loadFailed(cmd.ErrOrStderr(), inForce); err != nil {
					return err
				}
				if !asJSON {
					printHeader(cmd.OutOrStdout(), inForce)
				}
			}
			var targets []string
			for _, a := range args {
				if isBuiltinName(a) {
					targets = append(targets, a)
					continue
				}
				files, err := policyFiles([]string{a}, rules.IsPolicyFile)
				if err != nil {
					return err
				}
				targets = append(targets, files...)
			}
			if lim.states < 0 || lim.transitions < 0 || lim.memoryMiB < 0 || lim.timeout < 0 {
				return usage("a verify bound is 0 (the default) or more")
			}
			lim.depth = depth
			switch paramsMode {
			case "in-force":
			case "range":
				lim.paramsRange = true
			default:
				return usage("--params %q: want in-force or range", paramsMode)
			}
			if lim.paramsRange && inForce != nil {
				lim.reload = func(extra map[string]string) (*rules.Policy, rules.Diagnostics) {
					r, err := policyInForceWith(cmd, "", "", set, extra, "--params range")
					if err != nil {
						return nil, rules.Diagnostics{}
					}
					return r.Policy, r.Diagnostics
				}
			}
			bad, cut := verifyTargets(cmd.OutOrStdout(), cmd.ErrOrStderr(), targets, set, lim, asJSON, inForce)
			n := len(targets)
			if inForce != nil {
				n = 1 // the policy in force
			}
			if bad > 0 {
				return failure("%d of %d policies failed verification", bad, n)
			}
			if cut > 0 {
				return &exitError{code: exitIncomplete, msg: fmt.Sprintf("%d of %d policies incomplete: an exploration was cut by a bound before every state was explored", cut, n)}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().IntVar(&depth, "depth", 0, "bound the length of explored event sequences (0: explore until no new state)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per policy")
	cmd.Flags().IntVar(&lim.states, "max-states", 0, fmt.Sprintf("stop as incomplete after this many states (0: %d)", verify.DefaultMaxStates))
	cmd.Flags().IntVar(&lim.transitions, "max-transitions", 0, fmt.Sprintf("stop as incomplete after this many decisions (0: %d)", verify.DefaultMaxTransitions))
	cmd.Flags().Int64Var(&lim.memoryMiB, "max-memory", 0, fmt.Sprintf("stop as incomplete when the states and moves held reach this many MiB, estimated (0: %d)", verify.DefaultMaxBytes>>20))
	cmd.Flags().DurationVar(&lim.timeout, "timeout", 0, "stop as incomplete after this much CPU time per policy (0: no time limit)")
	cmd.Flags().StringVar(&paramsMode, "params", "in-force", "in-force: the param values in force (and the verify block's); range: also each param over the range its validation allows, one at a time")
	cmd.Flags().BoolVar(&lim.allWarnings, "all-warnings", false, "for a policy that uses a built-in, also show the file-order warnings between the built-in's own rules")
	return cmd
}

// verifyLimits are verify's bounds as the flags give them.
type verifyLimits struct {
	depth, states, transitions int
	memoryMiB                  int64
	timeout                    time.Duration
	allWarnings                bool
	// paramsRange: --params range. reload, when set, loads the policy
	// in force with more params set (else the target is loaded again).
	paramsRange bool
	reload      func(extra map[string]string) (*rules.Policy, rules.Diagnostics)
}

// options turns the limits into the checker's options. A time limit is
// one of CPU time, read here (the checker reads no clock), and only when
// asked for: the default bounds are counts, whatever the machine's load.
func (l verifyLimits) options() verify.Options {
	o := verify.Options{Depth: l.depth, MaxStates: l.states, MaxTransitions: l.transitions, MaxBytes: l.memoryMiB << 20, AllWarnings: l.allWarnings}
	if l.timeout > 0 {
		end := cpuTime() + l.timeout
		o.Stop = func() bool { return cpuTime() >= end }
		o.TimeLimit = l.timeout.Seconds()
	}
	return o
}

// verifyTargets verifies each policy and prints the results; it returns
// how many failed (to load or to verify) and how many explorations a bound
// cut before they found anything (incomplete).
// inForce, when set, is the one policy to verify instead of targets.
func verifyTargets(out, errw io.Writer, targets []string, set map[string]string, lim verifyLimits, asJSON bool, inForce *settings.Resolved) (bad, cut int) {
	var in *settings.ResolvedJSON
	if inForce != nil {
		// A built-in in force is loaded by its name for the verify
		// block's other param values.
		name := inForce.Source()
		if name == "builtin" && inForce.Policy != nil {
			name = inForce.Policy.Name
		}
		targets = []string{name}
		j := inForce.JSON()
		in = &j
	}
	for _, t := range targets {
		p, diags := loadPolicy(t, set)
		if inForce != nil {
			p, diags = inForce.Policy, inForce.Diagnostics
		}
		if diags.HasErrors() || p == nil {
			bad++
			fmt.Fprint(errw, diags.Error())
			continue
		}
		ps := []*rules.Policy{p}
		for _, extra := range paramSets(p, set) {
			q, diags := loadPolicy(t, extra)
			if diags.HasErrors() || q == nil {
				bad++
				fmt.Fprint(errw, diags.Error())
				continue
			}
			ps = append(ps, q)
		}
		for i, p := range ps {
			v := verdictHolds
			if i == 0 && lim.paramsRange {
				v = verifyRange(out, t, p, set, lim, asJSON, in)
			} else {
				v = verifyOne(out, t, p, lim, asJSON, in)
			}
			switch v {
			case verdictFailed:
				bad++
			case verdictIncomplete:
				cut++
			}
		}
	}
	return bad, cut
}

// A verify run's verdict on one policy.
type verdict int

const (
	verdictHolds      verdict = iota
	verdictFailed             // a finding: a counterexample or a failed check
	verdictIncomplete         // a bound cut the exploration before it found anything
)

func verdictOf(r *verify.Result) verdict {
	switch {
	case len(r.Findings) > 0:
		return verdictFailed
	case r.Incomplete:
		return verdictIncomplete
	}
	return verdictHolds
}

// paramSets are the --set maps of the param combinations a policy's verify
// block lists beside the values in force; a param --set gives stays fixed.
func paramSets(p *rules.Policy, set map[string]string) []map[string]string {
	v := p.Verify
	if v == nil || len(v.ParamNames) == 0 {
		return nil
	}
	out := []map[string]string{maps.Clone(set)}
	for _, name := range v.ParamNames {
		if _, fixed := set[name]; fixed {
			continue
		}
		var next []map[string]string
		for _, m := range out {
			for _, val := range v.Params[name] {
				x := maps.Clone(m)
				x[name] = val
				next = append(next, x)
			}
		}
		out = next
	}
	if len(out) == 1 && len(out[0]) == len(set) {
		return nil
	}
	return out
}

// verifyOne verifies one policy and prints its result and verdict.
func verifyOne(out io.Writer, t string, p *rules.Policy, lim verifyLimits, asJSON bool, in *settings.ResolvedJSON) verdict {
	start, cpu := time.Now(), cpuTime()
	r := verify.Check(p, lim.options())
	elapsed := time.Since(start)
	if asJSON {
		w := verifyJSON(r, t, elapsed)
		w.InForce = in
		b, _ := json.Marshal(w)
		fmt.Fprintln(out, string(b))
		return verdictOf(r)
	}
	r.WriteText(out)
	if len(p.Params) > 0 {
		fmt.Fprintf(out, "params: explored at the values in force only; --params range explores each over the range its validation allows\n")
	}
	word := "verified"
	switch verdictOf(r) {
	case verdictFailed:
		word = "failed"
	case verdictIncomplete:
		word = "incomplete"
	}
	fmt.Fprintf(out, "%s: %s in %.2fs (%.2fs CPU)\n", t, word, elapsed.Seconds(), (cpuTime() - cpu).Seconds())
	return verdictOf(r)
}

// verifyTestPolicies verifies, once each, the policies the test files name
// (with the files' own param overrides) and prints the results; it returns
// how many failed. Test files that do not parse are left to the runner.
// paramsRange also explores each param the file does not set over its
// range.
func verifyTestPolicies(out, _ io.Writer, inputs []testInput, paramsRange bool) int {
	seen := map[string]bool{}
	bad := 0
	for _, in := range inputs {
		if in.err != nil {
			continue
		}
		f, diags := testfile.Parse(in.src, in.name)
		if diags.HasErrors() {
			continue
		}
		key := f.PolicyFile() + "|" + f.Policy + "|" + f.OverridesKey(nil)
		if seen[key] {
			continue
		}
		seen[key] = true
		overrides := f.Overrides(nil)
		p, d := loadTestPolicy(f, overrides)
		if d.HasErrors() || p == nil {
			continue // the runner reports it
		}
		ps := []*rules.Policy{p}
		// The verify block's param values too, but for those the test
		// file sets.
		fixed := map[string]string{}
		for _, o := range overrides {
			fixed[o.Name] = ""
		}
		for _, extra := range paramSets(p, fixed) {
			for name := range fixed {
				delete(extra, name)
			}
			q, d := loadTestPolicySet(f, overrides, extra)
			if d.HasErrors() || q == nil {
				bad++
				fmt.Fprint(out, d.Error())
				continue
			}
			ps = append(ps, q)
		}
		if paramsRange {
			load := func(set map[string]string) (*rules.Policy, error) {
				q, d := loadTestPolicySet(f, overrides, set)
				if d.HasErrors() || q == nil {
					return nil, rangeError(d)
				}
				return q, nil
			}
			start := time.Now()
			res := sweep.Run(p, load, fixedNames(overrides), verifyLimits{}.options())
			res.Configs[0].Result.WriteText(out)
			res.WriteText(out)
			word := "verified"
			if !res.OK() {
				word = "failed"
				bad++
			}
			fmt.Fprintf(out, "%s (for %s): %s over its params' range in %.2fs\n", p.Name, in.name, word, time.Since(start).Seconds())
			ps = ps[1:]
		}
		for _, p := range ps {
			start := time.Now()
			r := verify.Check(p, verifyLimits{}.options())
			r.WriteText(out)
			fmt.Fprintf(out, "%s (for %s): verified in %.2fs\n", p.Name, in.name, time.Since(start).Seconds())
			if !r.OK() {
				bad++
			}
		}
	}
	return bad
}

// fixedNames are the params a test file sets: a sweep leaves them.
func fixedNames(overrides []rules.Override) map[string]bool {
	out := map[string]bool{}
	for _, o := range overrides {
		out[o.Name] = true
	}
	return out
}

// verifyJSONResult is one policy's result as verify --json prints it (and
// the report embeds it): the result, where it came from, how long it took,
// and each counterexample as eval lines and a run block.
type verifyJSONResult struct {
	*verify.Result
	InForce    *settings.ResolvedJSON `json:"policy_in_force,omitempty"`
	Source     string                 `json:"source"`
	Seconds    float64                `json:"seconds"`
	EvalInputs map[string]string      `json:"eval_inputs,omitempty"`
	RunBlocks  map[string]string      `json:"run_blocks,omitempty"`
	// ParamsRange is the sweep of --params range.
	ParamsRange *paramsRangeJSON `json:"params_range,omitempty"`
}

func verifyJSON(r *verify.Result, source string, elapsed time.Duration) verifyJSONResult {
	w := verifyJSONResult{Result: r, Source: source, Seconds: elapsed.Seconds()}
	for _, f := range r.Findings {
		if len(f.Trace) > 0 {
			if w.EvalInputs == nil {
				w.EvalInputs, w.RunBlocks = map[string]string{}, map[string]string{}
			}
			w.EvalInputs[f.Name] = f.EvalLines()
			w.RunBlocks[f.Name] = f.RunBlock(r.Policy)
		}
	}
	return w
}

// loadTestPolicySet is loadTestPolicy with param values as --set gives
// them, for a verify block's params.
func loadTestPolicySet(f *testfile.File, overrides []rules.Override, set map[string]string) (*rules.Policy, rules.Diagnostics) {
	if path := f.PolicyFile(); path != "" {
		return rules.LoadFile(path, append(builtinOptions(), rules.WithOverrides(overrides...), rules.WithSet(set, "verify"))...)
	}
	return policies.Load(f.Policy, set, rules.WithOverrides(overrides...))
}

// verifyRange verifies p at the values in force and over each param's
// range (engine/sweep) and prints every configuration's verdict; a param
// --set gives stays fixed.
func verifyRange(out io.Writer, t string, p *rules.Policy, set map[string]string, lim verifyLimits, asJSON bool, in *settings.ResolvedJSON) verdict {
	start, cpu := time.Now(), cpuTime()
	load := func(extra map[string]string) (*rules.Policy, error) {
		var q *rules.Policy
		var diags rules.Diagnostics
		if lim.reload != nil {
			q, diags = lim.reload(extra)
		} else {
			all := maps.Clone(set)
			if all == nil {
				all = map[string]string{}
			}
			maps.Copy(all, extra)
			q, diags = loadPolicy(t, all)
		}
		if diags.HasErrors() || q == nil {
			return nil, rangeError(diags)
		}
		return q, nil
	}
	fixed := map[string]bool{}
	for k := range set {
		fixed[k] = true
	}
	res := sweep.Run(p, load, fixed, lim.options())
	elapsed := time.Since(start)
	v := verdictHolds
	if _, failed, incomplete := res.Count(); failed > 0 {
		v = verdictFailed
	} else if incomplete > 0 {
		v = verdictIncomplete
	}
	if asJSON {
		w := verifyJSON(res.Configs[0].Result, t, elapsed)
		w.InForce = in
		w.ParamsRange = rangeJSON(res, t)
		b, _ := json.Marshal(w)
		fmt.Fprintln(out, string(b))
		return v
	}
	res.Configs[0].Result.WriteText(out)
	res.WriteText(out)
	word := map[verdict]string{verdictHolds: "verified", verdictFailed: "failed", verdictIncomplete: "incomplete"}[v]
	fmt.Fprintf(out, "%s: %s over its params' range in %.2fs (%.2fs CPU)\n", t, word, elapsed.Seconds(), (cpuTime() - cpu).Seconds())
	return v
}

// rangeError is a load failure as one line: the policy's validation
// message for a value it rejects.
func rangeError(d rules.Diagnostics) error {
	for _, x := range d.Diagnostics {
		if x.Severity == hcl.DiagError {
			if x.Detail != "" {
				return errors.New(x.Detail)
			}
			return errors.New(x.Summary)
		}
	}
	return errors.New("the policy does not load")
}

// paramsRangeJSON is verify --json's params_range: the sweep, each
// configuration with its verdict, and, for one not proved, its findings
// with their eval input and run block.
type paramsRangeJSON struct {
	Configs  []rangeConfigJSON `json:"configs"`
	Outside  []sweep.Rejected  `json:"outside_validation,omitempty"`
	Unproved []sweep.Rejected  `json:"not_explored,omitempty"`
}

type rangeConfigJSON struct {
	Set         map[string]string `json:"set"`
	Candidates  []sweep.Candidate `json:"candidates,omitempty"`
	Verdict     string            `json:"verdict"`
	Idle        []string          `json:"idle,omitempty"`
	States      int               `json:"states"`
	Transitions int               `json:"transitions"`
	Result      *verifyJSONResult `json:"result,omitempty"`
}

func rangeJSON(res *sweep.Result, t string) *paramsRangeJSON {
	out := &paramsRangeJSON{Outside: res.Outside, Unproved: res.Unproved}
	for _, c := range res.Configs {
		x := rangeConfigJSON{Set: c.Set, Candidates: c.Candidates, Verdict: c.Verdict, Idle: c.Idle, States: c.Result.States, Transitions: c.Result.Transitions}
		if c.Verdict != sweep.Proved {
			w := verifyJSON(c.Result, t, 0)
			x.Result = &w
		}
		out.Configs = append(out.Configs, x)
	}
	return out
}
