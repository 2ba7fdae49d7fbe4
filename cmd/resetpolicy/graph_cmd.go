package main

import (
	"fmt"
	"time"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/render"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newGraphCmd) }

func newGraphCmd(*viper.Viper) *cobra.Command {
	var sets, slots []string
	var format, outFile string
	var product bool
	var lim graph.Limits
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "graph [POLICY] [--slot NAME...] [--format dot|mermaid|svg|png] [-o FILE]",
		Short: "Draw a policy's state diagram",
		Long: `graph draws the state diagram of a policy from what the engine does: verify
explores every reachable state and each decision it makes is drawn. Nodes are
the values of its enum slots; an edge is a move between two of them, labelled
with the events that make it (parallel moves merged), the rules behind it in
the SVG's tooltip (the DOT's tooltip attribute); rules that fire without moving
the slots are a loop. A move made alike from every state (a session change,
switching off) is drawn once, from "every state". An exit that an earlier rule
always pre-empts is not drawn, because it never happens.

By default: one diagram per enum slot. With two or more --slot: their product,
restricted to the combinations verify reaches. svg and png are drawn in Go,
with nothing to install; mermaid pastes into a README or an issue.

Bounded: --max-states (the exploration), --max-nodes and --max-edges (each
diagram), counts that stop it alike on an idle and on a busy machine, and
--timeout, CPU time, when given; graph stops with a message naming the bound
it hit.

Without POLICY it draws the policy in force in this directory, as Pi runs it
(see 'resetpolicy config'), and names it on stderr.`,
		Example: `  resetpolicy graph wipe_memory --slot request --slot overflow --format svg -o wipe_memory.svg
  resetpolicy graph new_context --format mermaid`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
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
			named := ""
			if len(args) == 1 {
				named = args[0]
			}
			r, err := policyInForce(cmd, named, "argument", set)
			if err != nil {
				return err
			}
			if err := loadFailed(cmd.ErrOrStderr(), r); err != nil {
				return err
			}
			p := r.Policy
			if named == "" {
				// stdout is the diagram: the header goes to stderr.
				printHeader(cmd.ErrOrStderr(), r)
			}
			for _, name := range slots {
				if s, ok := p.Slot(name); !ok || !s.IsEnum() {
					return usage("%s: %s is not an enum slot", p.Name, name)
				}
			}
			ds, err := draw(p, slots, len(slots) >= 2 || product, lim, timeout)
			if err != nil {
				return failure("graph: %v", err)
			}
			var out []byte
			switch format {
			case "dot":
				out = graph.DOT(ds)
			case "mermaid":
				out = graph.Mermaid(ds)
			default:
				if out, err = render.Render(ds, format); err != nil {
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
	cmd.Flags().IntVar(&lim.MaxStates, "max-states", graph.DefaultMaxStates, "bound the states the exploration visits")
	cmd.Flags().IntVar(&lim.MaxNodes, "max-nodes", graph.DefaultMaxNodes, "bound the states of one diagram")
	cmd.Flags().IntVar(&lim.MaxEdges, "max-edges", graph.DefaultMaxEdges, "bound the edges of one diagram")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this much CPU time (0: no time limit)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	return cmd
}

// draw builds the diagrams within the CPU-time bound, if one is given:
// the exploration and the layout are bounded by counts, and the process's
// CPU time is read here, every few milliseconds.
func draw(p *rules.Policy, slots []string, product bool, lim graph.Limits, timeout time.Duration) ([]*graph.Diagram, error) {
	type result struct {
		ds  []*graph.Diagram
		err error
	}
	done := make(chan result, 1)
	go func() {
		if product {
			d, err := graph.Product(p, slots, lim)
			done <- result{[]*graph.Diagram{d}, err}
			return
		}
		ds, err := graph.PerSlot(p, slots, lim)
		done <- result{ds, err}
	}()
	if timeout == 0 {
		r := <-done
		return r.ds, r.err
	}
	end := cpuTime() + timeout
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.ds, r.err
		case <-tick.C:
			if cpuTime() >= end {
				return nil, fmt.Errorf("%s: no diagram within %v (--timeout) of CPU time; draw fewer slots or lower --max-states", p.Name, timeout)
			}
		}
	}
}
