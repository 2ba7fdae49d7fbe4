package main

import (
	"fmt"
	"io"
	"os"

	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/spf13/cobra"
)

// policyInForce is the policy a command runs. When the command names one
// (named: a --policy flag or an argument, where says which) it is that
// policy with the --set overrides and nothing else. Otherwise it is what
// the Pi extension runs in the working directory: settings.Resolve with
// the working directory as a trusted project — like terraform and opa,
// the directory the user runs the command in is its configuration — then
// the user config, RESETPOLICY_* and the command's --set flags.
func policyInForce(cmd *cobra.Command, named, where string, set map[string]string) (*settings.Resolved, error) {
	return policyInForceWith(cmd, named, where, set, nil, "")
}

// policyInForceWith is policyInForce with extra param values above the
// --set flags (replay's --compare values), extraOrigin naming them.
func policyInForceWith(cmd *cobra.Command, named, where string, set, extra map[string]string, extraOrigin string) (*settings.Resolved, error) {
	if named != "" {
		if err := checkPolicyArg(named); err != nil {
			return nil, err
		}
		return settings.Named(named, where, set, rules.WithSet(extra, extraOrigin)), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, failure("%v", err)
	}
	r, err := settings.Resolve(settings.Options{ProjectDir: wd, Trusted: true, Flags: cmd.Flags(), Set: extra, SetOrigin: extraOrigin})
	if err != nil {
		return nil, failure("%v", err)
	}
	return r, nil
}

// namedPolicy is the --policy flag's value when it was given.
func namedPolicy(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("policy"); f != nil && f.Changed {
		return f.Value.String()
	}
	return ""
}

// printHeader writes the resolution's header line, "# " first so that a
// reader (or a shell) takes it for a comment.
func printHeader(w io.Writer, r *settings.Resolved) {
	fmt.Fprintf(w, "# %s\n", r.Header())
}

// loadFailed prints a resolution's diagnostics; it returns silent when
// the policy did not load.
func loadFailed(w io.Writer, r *settings.Resolved) error {
	if len(r.Diagnostics.Diagnostics) > 0 {
		fmt.Fprint(w, r.Diagnostics.Error())
	}
	if r.Policy == nil {
		return silent
	}
	return nil
}
