package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/spf13/cobra"
)

func newPoliciesCmd() *cobra.Command {
	var source string
	cmd := &cobra.Command{
		Use:   "policies [NAME...]",
		Short: "List the built-in policies with their params",
		Long: `policies lists the built-in policies, each with its params: type, default and
description. Name policies to list only those. --source NAME prints a
built-in's HCL, a starting point for a policy of your own.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if source != "" {
				src, ok := policies.Source(source)
				if !ok {
					return failure("there is no built-in policy %q (built-ins: %s)", source, strings.Join(policies.Names(), ", "))
				}
				_, err := out.Write(src.Bytes)
				return err
			}
			if len(args) == 0 {
				args = policies.Names()
			}
			for i, name := range args {
				p, diags := policies.Load(name, nil)
				if diags.HasErrors() {
					fmt.Fprint(cmd.ErrOrStderr(), diags.Error())
					return silent
				}
				if i > 0 {
					fmt.Fprintln(out)
				}
				def := ""
				if name == policies.Default {
					def = " (default)"
				}
				fmt.Fprintf(out, "%s%s\n  %s\n", p.Name, def, p.Description)
				if len(p.Params) == 0 {
					continue
				}
				fmt.Fprintln(out, "\n  params:")
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				for _, x := range p.Params {
					val := strings.TrimSpace(string(hclwrite.TokensForValue(x.Default).Bytes()))
					fmt.Fprintf(tw, "    %s\t%s\t= %s\t%s\n", x.Name, typeName(x.Type.FriendlyNameForConstraint()), val, x.Description)
				}
				tw.Flush()
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&source, "source", "", "print the HCL source of this built-in")
	return cmd
}

func typeName(s string) string {
	return strings.NewReplacer("list of number", "list(number)", "list of string", "list(string)").Replace(s)
}
