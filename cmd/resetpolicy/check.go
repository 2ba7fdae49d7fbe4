package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	var (
		sets   []string
		werror bool
		asJSON bool
		onHost string
	)
	cmd := &cobra.Command{
		Use:   "check [FILE|DIR|NAME...]",
		Short: "Load and validate policies",
		Long: `check loads each policy — a file, every policy file under a directory, or a
built-in by name — validates it against the host contract and compiles every
expression. Problems are printed as file:line:col with the offending line.
Warnings name dead parts — a param, slot, derived value or message that
nothing reads; -Werror makes them errors. With --host, every rule that leans
on what that host cannot do (an event it never reports, an effect it cannot
carry out) is a warning at the rule, and a policy whose hosts leave that host
out is an error ('resetpolicy contract' lists each host's gaps).
With no arguments it checks the policy in force in this directory, as Pi
runs it (.resetpolicy.hcl or .pi/resetpolicy.hcl, the project config, the
user config, RESETPOLICY_*, --set; see 'resetpolicy config'); 'check
policies' checks the built-ins' sources.

Exit status: 0 when every policy is valid, 1 when any is not.`,
		Example: `  resetpolicy check policies/wipe_memory.hcl
  resetpolicy check .pi/resetpolicy.hcl --set warning_runway=8192
  resetpolicy check testdata/invalid/unknown_fact.hcl
  resetpolicy check --host opencode wipe_memory`,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := parseSet(sets)
			if err != nil {
				return err
			}
			host, err := lookupHost(onHost)
			if err != nil {
				return err
			}
			var inForce *settings.Resolved
			if len(args) == 0 {
				// The policy in force here, as Pi runs it.
				if inForce, err = policyInForce(cmd, "", "", set); err != nil {
					return err
				}
				if !asJSON {
					printHeader(cmd.OutOrStdout(), inForce)
				}
				args = []string{inForce.Source()}
				if args[0] == "builtin" {
					args[0] = inForce.Settings.Policy.Text
				}
			}
			var targets []string
			for _, a := range args {
				if err := checkPolicyArg(a); err != nil {
					return err
				}
				if _, err := os.Stat(a); err != nil {
					targets = append(targets, a) // a built-in
					continue
				}
				files, err := policyFiles([]string{a}, rules.IsPolicyFile)
				if err != nil {
					return err
				}
				targets = append(targets, files...)
			}
			bad := 0
			var results []checkJSON
			for _, t := range targets {
				p, diags := loadPolicy(t, set)
				if inForce != nil {
					p, diags = inForce.Policy, inForce.Diagnostics
				}
				if p != nil && !diags.HasErrors() {
					diags.Diagnostics = append(diags.Diagnostics, rules.DeadParts(p)...)
					diags.Diagnostics = append(diags.Diagnostics, p.HostGaps(host)...)
					diags.Diagnostics = append(diags.Diagnostics, rules.UndeclaredKinds(p)...)
					if werror {
						for _, d := range diags.Diagnostics {
							d.Severity = hcl.DiagError
						}
					}
				}
				if asJSON {
					r := checkJSON{Target: t, OK: p != nil && !diags.HasErrors(), Diagnostics: rules.DiagnosticsJSON(diags.Diagnostics)}
					if inForce != nil {
						j := inForce.JSON()
						r.InForce = &j
					}
					if r.OK {
						r.Policy, r.Params, r.Slots, r.Rules = p.Name, len(p.Params), len(p.Slots), len(p.Rules)
					} else {
						bad++
					}
					results = append(results, r)
					continue
				}
				if diags.HasErrors() || p == nil {
					bad++
					fmt.Fprint(cmd.ErrOrStderr(), diags.Error())
					continue
				}
				if len(diags.Diagnostics) > 0 {
					fmt.Fprint(cmd.ErrOrStderr(), diags.Error())
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (policy %s: %s, %s, %s)\n", t, p.Name,
					plural(len(p.Params), "param"), plural(len(p.Slots), "slot"), plural(len(p.Rules), "rule"))
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), results); err != nil {
					return failure("%v", err)
				}
				if bad > 0 {
					return silent
				}
				return nil
			}
			if bad > 0 {
				return failure("%d of %d failed to load", bad, len(targets))
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array instead of text: an object per policy, with its diagnostics")
	cmd.Flags().StringVar(&onHost, "host", contract.DefaultHost, "name what of the policy this host cannot do: "+strings.Join(contract.HostNames(), ", "))
	cmd.Flags().BoolVar(&werror, "Werror", false, "treat warnings (such as a param, slot, derived value or message nothing reads) as errors")
	return cmd
}

// lookupHost resolves a --host flag.
func lookupHost(name string) (*contract.Host, error) {
	if h, ok := contract.LookupHost(name); ok {
		return h, nil
	}
	names := contract.HostNames()
	if s := lang.Suggest(name, names); s != "" {
		return nil, usage("--host %q is not a host%s", name, s)
	}
	return nil, usage("--host %q is not a host; the hosts are %s", name, strings.Join(names, ", "))
}
