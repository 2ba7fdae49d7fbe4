package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/host/settings"
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
per line) and as a run block for a *.test.hcl file.

With no arguments it verifies the policy in force in this directory, as Pi
runs it (.pi/resetpolicy.hcl, .pi/resetpolicy.yaml, the user config,
RESETPOLICY_*, --set; see 'resetpolicy config'), and says which it used.
Exit status: 0 when everything holds, 1 on a finding, 2 for a usage error.`,
		Example: `  resetpolicy verify wipe_memory
  resetpolicy verify .pi/resetpolicy.hcl --set warning_runway=8192
  resetpolicy verify --json autocompacter`,
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
			bad := verifyTargets(cmd.OutOrStdout(), cmd.ErrOrStderr(), targets, set, depth, asJSON, inForce)
			if bad > 0 {
				return failure("%d of %d policies failed verification", bad, len(targets))
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().IntVar(&depth, "depth", 0, "bound the length of explored event sequences (0: explore until no new state)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per policy")
	return cmd
}

// verifyTargets verifies each policy and prints the results; it returns
// how many failed (to load or to verify).
// inForce, when set, is the one policy to verify instead of targets.
func verifyTargets(out, errw io.Writer, targets []string, set map[string]string, depth int, asJSON bool, inForce *settings.Resolved) int {
	bad := 0
	var in *settings.ResolvedJSON
	if inForce != nil {
		targets = []string{inForce.Source()}
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
		start := time.Now()
		r := verify.Check(p, verify.Options{Depth: depth})
		elapsed := time.Since(start)
		if !r.OK() {
			bad++
		}
		if asJSON {
			w := verifyJSON(r, t, elapsed)
			w.InForce = in
			b, _ := json.Marshal(w)
			fmt.Fprintln(out, string(b))
			continue
		}
		r.WriteText(out)
		fmt.Fprintf(out, "%s: verified in %.2fs\n", t, elapsed.Seconds())
	}
	return bad
}

// verifyTestPolicies verifies, once each, the policies the test files name
// (with the files' own param overrides) and prints the results; it returns
// how many failed. Test files that do not parse are left to the runner.
func verifyTestPolicies(out, _ io.Writer, inputs []testInput) int {
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
		p, d := loadTestPolicy(f, f.Overrides(nil))
		if d.HasErrors() || p == nil {
			continue // the runner reports it
		}
		start := time.Now()
		r := verify.Check(p, verify.Options{})
		r.WriteText(out)
		fmt.Fprintf(out, "%s (for %s): verified in %.2fs\n", p.Name, in.name, time.Since(start).Seconds())
		if !r.OK() {
			bad++
		}
	}
	return bad
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
