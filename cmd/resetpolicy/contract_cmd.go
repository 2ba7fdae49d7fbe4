package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() {
	extraCommands = append(extraCommands, func(*viper.Viper) *cobra.Command { return newContractCmd() })
}

func newContractCmd() *cobra.Command {
	var asJSON, markdown, steps bool
	cmd := &cobra.Command{
		Use:   "contract [--json|--markdown] [--scenario]",
		Short: "Print the host contract: every event with its facts, every effect with its arguments",
		Long: `contract prints the host contract the policies are written against: the facts
every event carries, each event with its own facts (type, default, meaning)
and when the Pi host reports it, each effect with its arguments, and per host
(pi, opencode) the events it never reports and the effects it cannot carry
out. It is
generated from the declarations in rules/contract; docs/contract.md is its
--markdown form. With --scenario it prints the step blocks of simulate's
scenario files instead (docs/scenario.md).`,
		Example: `  resetpolicy contract
  resetpolicy contract --json | jq '.events[].name'
  resetpolicy contract --scenario --markdown > docs/scenario.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && markdown {
				return usage("--json and --markdown exclude each other")
			}
			out := cmd.OutOrStdout()
			switch {
			case steps && asJSON:
				return writeJSON(out, map[string]any{"header": scenario.HeaderRef, "steps": scenario.StepRefs})
			case steps && markdown:
				return scenario.WriteMarkdown(out)
			case steps:
				return writeStepsText(out)
			case asJSON:
				return writeJSON(out, contract.Ref())
			case markdown:
				return contract.WriteMarkdown(out)
			}
			return writeContractText(out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print it as Markdown (docs/contract.md)")
	cmd.Flags().BoolVar(&steps, "scenario", false, "print the step blocks of scenario files instead")
	return cmd
}

func writeContractText(w io.Writer) error {
	r := contract.Ref()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "host contract, version %s\n\nfacts on every event:\n", r.Version)
	writeFactsText(bw, r.CommonFacts)
	for _, e := range r.Events {
		fmt.Fprintf(bw, "\nevent %s  (Pi: %s)\n  reported when %s\n", e.Name, e.Hook, e.Reported)
		writeFactsText(bw, e.Facts)
	}
	for _, e := range r.Effects {
		fmt.Fprintf(bw, "\neffect %s\n  %s\n", e.Name, e.Doc)
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		for _, a := range e.Args {
			req := "optional"
			if a.Required {
				req = "required"
			}
			doc := a.Doc
			if len(a.Enum) > 0 {
				doc = strings.TrimPrefix(doc+"; one of "+strings.Join(a.Enum, ", "), "; ")
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", a.Name, a.Type, req, doc)
		}
		tw.Flush()
	}
	for _, h := range r.Hosts {
		fmt.Fprintf(bw, "\nhost %s  (%s)\n  %s\n", h.Name, h.Adapter, h.Doc)
		if len(h.Unreported)+len(h.Unsupported) == 0 {
			fmt.Fprintf(bw, "  reports every event and carries out every effect\n")
			continue
		}
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		for _, g := range h.Unreported {
			fmt.Fprintf(tw, "    event %s\tnever reported\t%s\n", g.Name, g.Why)
		}
		for _, g := range h.Unsupported {
			fmt.Fprintf(tw, "    effect %s\tnot carried out\t%s\n", g.Name, g.Why)
		}
		tw.Flush()
	}
	return bw.Flush()
}

func writeFactsText(w io.Writer, fs []contract.FactRef) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range fs {
		def := fmt.Sprintf("%v", f.Default)
		if s, ok := f.Default.(string); ok {
			def = fmt.Sprintf("%q", s)
		} else if f.Type == "object" {
			def = "{}"
		}
		doc := f.Doc
		if len(f.Enum) > 0 {
			doc = strings.TrimPrefix(doc+"; one of "+strings.Join(quoteEach(f.Enum), ", "), "; ")
		}
		fmt.Fprintf(tw, "    %s\t%s\t= %s\t%s\n", f.Name, f.Type, def, doc)
	}
	tw.Flush()
}

func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func writeStepsText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, s := range append([]scenario.StepRef{scenario.HeaderRef}, scenario.StepRefs...) {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		label := ""
		if s.Label != "" {
			label = " " + s.Label
		}
		fmt.Fprintf(bw, "%s%s\n  %s\n", s.Block, label, s.Doc)
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		for _, a := range s.Attrs {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", a.Name, a.Type, a.Doc)
		}
		tw.Flush()
	}
	return bw.Flush()
}
