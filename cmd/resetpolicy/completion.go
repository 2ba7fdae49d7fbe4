package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/spf13/cobra"
)

// addCompletions teaches cobra's shell completion (`resetpolicy completion
// bash|zsh|fish|powershell`) the names a user types: built-in policies as
// arguments and after --policy, the policy's params after --set, scenario
// files after --scenario. Files complete as the shell does.
func addCompletions(root *cobra.Command) {
	policyArgs := func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(policies.Names(), toComplete), cobra.ShellCompDirectiveDefault
	}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "check", "policies":
			c.ValidArgsFunction = policyArgs
		}
		if f := c.Flags().Lookup("policy"); f != nil {
			_ = c.RegisterFlagCompletionFunc("policy", policyArgs)
		}
		if f := c.Flags().Lookup("source"); f != nil {
			_ = c.RegisterFlagCompletionFunc("source", policyArgs)
		}
		if f := c.Flags().Lookup("set"); f != nil {
			_ = c.RegisterFlagCompletionFunc("set", completeSet)
		}
		if f := c.Flags().Lookup("scenario"); f != nil && f.Value.Type() == "string" {
			_ = c.RegisterFlagCompletionFunc("scenario", completeScenario)
		}
	}
}

// completeSet completes NAME= with the params of the policy the command
// line names (--policy, or a first argument), else the default policy.
func completeSet(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	name := policies.Default
	if f := cmd.Flags().Lookup("policy"); f != nil && f.Value.String() != "" {
		name = f.Value.String()
	} else if len(args) > 0 {
		name = args[0]
	}
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	p, diags := loadPolicy(name, nil)
	if p == nil || diags.HasErrors() {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, x := range p.Params {
		if strings.HasPrefix(x.Name, toComplete) {
			out = append(out, x.Name+"=\t"+x.Description)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// completeScenario offers the scenario files (*.scenario.hcl) and the
// directories that may hold them.
func completeScenario(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	matches, _ := filepath.Glob(toComplete + "*")
	var out []string
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && info.IsDir() {
			out = append(out, m+string(filepath.Separator))
		} else if strings.HasSuffix(m, ".scenario.hcl") {
			out = append(out, m)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}
