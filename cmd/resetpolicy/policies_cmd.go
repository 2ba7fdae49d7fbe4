package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
	"github.com/spf13/cobra"
)

func newPoliciesCmd() *cobra.Command {
	var (
		source string
		tests  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "policies [NAME|FILE...]",
		Short: "List the built-in policies with their params",
		Long: `policies lists the built-in policies, each with its params: type, default and
description. Name policies — built-ins or policy files — to describe only
those. --source NAME prints a built-in's HCL, a starting point for a policy of
your own; --source FILE of a file that uses a built-in prints the effective
policy, with a comment at each inherited, replaced and added part. With
--tests, --source prints the policy's test file instead.`,
		Example: `  resetpolicy policies
  resetpolicy policies .pi/resetpolicy.hcl
  resetpolicy policies --source wipe_memory --tests
  resetpolicy policies --source .pi/resetpolicy.hcl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if source != "" {
				return printSource(out, source, tests)
			}
			if tests {
				return usage("--tests goes with --source NAME")
			}
			if len(args) == 0 {
				args = policies.Names()
			}
			var loaded []*rules.Policy
			for _, name := range args {
				if err := checkPolicyArg(name); err != nil {
					return err
				}
				p, diags := loadPolicy(name, nil)
				if diags.HasErrors() {
					fmt.Fprint(cmd.ErrOrStderr(), diags.Error())
					return silent
				}
				loaded = append(loaded, p)
			}
			if asJSON {
				return writeJSON(out, policiesJSON(loaded))
			}
			for i, p := range loaded {
				if i > 0 {
					fmt.Fprintln(out)
				}
				describePolicy(out, p, args[i])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&source, "source", "", "print the HCL source of this built-in, or the effective policy of this `NAME|FILE`")
	cmd.Flags().BoolVar(&tests, "tests", false, "with --source, print the policy's test file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the policies as JSON")
	return cmd
}

func describePolicy(out io.Writer, p *rules.Policy, arg string) {
	def := ""
	if arg == policies.Default {
		def = " (default)"
	}
	from := ""
	if p.File != "" || !isBuiltinName(arg) {
		from = " — " + arg
	}
	fmt.Fprintf(out, "%s%s%s\n  %s\n", p.Name, def, from, p.Description)
	if c := p.Composition; c != nil {
		fmt.Fprintf(out, "  uses built-in %s: %s added, %s replaced, %s disabled\n", c.Base,
			plural(countOrigin(p, rules.Added), "rule"), plural(len(c.Replaced), "rule"), plural(len(c.Disabled), "rule"))
	}
	if len(p.Params) == 0 {
		return
	}
	fmt.Fprintln(out, "\n  params:")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, x := range p.Params {
		val := hclfmt.Value(x.Value)
		origin := ""
		if x.Origin != "default" {
			origin = " (" + x.Origin + ")"
		}
		fmt.Fprintf(tw, "    %s\t%s\t= %s%s\t%s\n", x.Name, typeName(x.Type.FriendlyNameForConstraint()), val, origin, x.Description)
	}
	tw.Flush()
}

func countOrigin(p *rules.Policy, o rules.Origin) int {
	n := 0
	for _, r := range p.Rules {
		if p.Composition.RuleOrigin(r) == o {
			n++
		}
	}
	return n
}

// printSource prints a built-in's file or the effective policy of a file,
// or with tests the test file beside it.
func printSource(out io.Writer, arg string, tests bool) error {
	if err := checkPolicyArg(arg); err != nil {
		return err
	}
	if tests {
		if isBuiltinName(arg) {
			src, _ := policies.TestSource(arg)
			_, err := out.Write(src.Bytes)
			return err
		}
		path := strings.TrimSuffix(strings.TrimSuffix(arg, ".json"), ".hcl") + ".test.hcl"
		b, err := readFile(path)
		if err != nil {
			return err
		}
		_, err = out.Write(b)
		return err
	}
	if isBuiltinName(arg) {
		src, _ := policies.Source(arg)
		_, err := out.Write(src.Bytes)
		return err
	}
	p, diags := loadPolicy(arg, nil)
	if diags.HasErrors() {
		return failure("%s", strings.TrimRight(diags.Error(), "\n"))
	}
	b, err := rules.EffectiveSource(p)
	if err != nil {
		return failure("%v", err)
	}
	_, err = out.Write(b)
	return err
}

func typeName(s string) string {
	return strings.NewReplacer("list of number", "list(number)", "list of string", "list(string)").Replace(s)
}
