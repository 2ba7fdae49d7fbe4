package main

import (
	"context"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/render"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newGraphCmd) }

func newGraphCmd(*viper.Viper) *cobra.Command {
	var sets, slots []string
	var format, outFile string
	var product bool
	cmd := &cobra.Command{
		Use:   "graph POLICY [--slot NAME...] [--format dot|mermaid|svg|png] [-o FILE]",
		Short: "Draw a policy's state diagram",
		Long: `graph draws the state diagram of a policy. Nodes are the values of its enum
slots; edges are the rules that move between them, labelled event / rule;
rules that fire without moving are listed in the node they fire in.

By default: one diagram per enum slot, from the rules as written. With two or
more --slot: their product, restricted to the combinations verify reaches,
with the moves it explored. svg and png are drawn in process (Graphviz
compiled to WebAssembly); mermaid pastes into a README or an issue.`,
		Example: `  resetpolicy graph wipe_memory --slot request --slot overflow --format svg -o wipe_memory.svg
  resetpolicy graph new_context --format mermaid`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("graph takes one policy, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "dot", "mermaid", "svg", "png":
			default:
				return usage("--format %q: dot, mermaid, svg or png", format)
			}
			set, err := parseSet(sets)
			if err != nil {
				return err
			}
			p, diags := loadPolicy(args[0], set)
			if diags.HasErrors() || p == nil {
				cmd.PrintErr(diags.Error())
				return silent
			}
			var ds []*graph.Diagram
			if len(slots) >= 2 || product {
				d, err := graph.Product(p, slots)
				if err != nil {
					return usage("%v", err)
				}
				ds = []*graph.Diagram{d}
			} else if ds, err = graph.PerSlot(p, slots); err != nil {
				return usage("%v", err)
			}
			var out []byte
			switch format {
			case "dot":
				out = graph.DOT(ds)
			case "mermaid":
				out = graph.Mermaid(ds)
			default:
				if out, err = render.Render(context.Background(), graph.DOT(ds), format); err != nil {
					return failure("%v", err)
				}
			}
			if outFile != "" {
				if err := fileio.WriteOutput(outFile, out, 0o644); err != nil {
					return failure("%v", err)
				}
				return nil
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	cmd.Flags().StringArrayVar(&slots, "slot", nil, "draw this enum slot (repeatable; two or more: their reachable product)")
	cmd.Flags().BoolVar(&product, "product", false, "draw the reachable product of the --slot slots even for one slot")
	cmd.Flags().StringVar(&format, "format", "dot", "dot, mermaid, svg or png")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write to `FILE` instead of stdout")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	return cmd
}
