package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/host/chart"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/host/sim"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newSimulateCmd) }

func newSimulateCmd(v *viper.Viper) *cobra.Command {
	var (
		sets         []string
		scenarioFile string
		out          string
		plotFile     string
		wide         bool
	)
	cmd := &cobra.Command{
		Use:   "simulate [--policy NAME|FILE] [--scenario FILE] [--set PARAM=VALUE...] [--out session.jsonl]",
		Short: "Run a scripted agent session through the simulated host and print its timeline",
		Long: `simulate runs a scenario — a scripted agent session: prompts, model answers
with their token usage and tool calls, errors, aborts, commands, queued
messages — through a simulated Pi host that asks the policy at every
lifecycle event and carries out what it decides on a real Pi session.

It prints a timeline, one line per host event: the turn, the window, the
event, the context tokens and what remains of the window, the policy's derived
values that changed, the rules that fired, the effects, and the session
entries appended.

With no arguments it runs the built-in scenario on wipe_memory: a budget
reminder, the close-out warning, the agent's wipe_memory call, and a reset
that continues in a fresh window.

--policy is a built-in name or a policy file; without it a --scenario file's
policy line is used, else the policy in force in this directory as Pi runs
it (.resetpolicy.hcl or .pi/resetpolicy.hcl, the project config, the user
config, RESETPOLICY_POLICY and RESETPOLICY_PARAM_*; see 'resetpolicy config'), else
wipe_memory. The first line says which policy and params ran. --set overrides a
param after the scenario's own overrides. --out writes the session as Pi JSONL.
--plot draws context per turn with the policy's thresholds and decisions, as
replay --plot does.`,
		Example: `  resetpolicy simulate
  resetpolicy simulate --set warning_runway=20000
  resetpolicy simulate --policy autocompacter --scenario testdata/scenarios/autocompacter_force.scenario.hcl
  resetpolicy simulate --out session.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plotFile != "" && !strings.HasSuffix(plotFile, ".svg") && !strings.HasSuffix(plotFile, ".png") {
				return usage("--plot %q: the file name must end in .svg or .png", plotFile)
			}
			set, err := parseSet(sets)
			if err != nil {
				return err
			}
			var (
				sc    *scenario.Scenario
				diags hcl.Diagnostics
			)
			if f := cmd.Flags().Lookup("policy"); f.Changed {
				if err := checkPolicyArg(f.Value.String()); err != nil {
					return err
				}
			}
			if scenarioFile == "" {
				sc, diags = scenario.Default()
			} else {
				if _, err := os.Stat(scenarioFile); errors.Is(err, fs.ErrNotExist) {
					return usage("%s: no such file", scenarioFile)
				}
				sc, diags = scenario.ParseFile(scenarioFile)
			}
			if diags.HasErrors() {
				sources := map[string][]byte{}
				if sc != nil {
					sources[sc.File] = sc.Source
				} else if scenarioFile == "" {
					sources[scenario.DefaultName] = scenario.DefaultSource()
				} else if b, d := rules.ReadHCLFile(scenarioFile, "scenario file"); !d.HasErrors() {
					sources[scenarioFile] = b
				}
				fmt.Fprint(cmd.ErrOrStderr(), rules.FormatDiagnostics(sources, diags))
				return silent
			}
			// The policy: --policy, else the scenario file's policy line,
			// else (the built-in scenario, or a scenario naming none) the
			// policy in force here, as Pi would run it.
			var r *settings.Resolved
			if name := namedPolicy(cmd); name != "" || scenarioFile != "" && sc.Policy != "" {
				p, pdiags := sim.LoadPolicy(sim.PolicyName(name, sc), sc, set)
				if pdiags.HasErrors() {
					fmt.Fprint(cmd.ErrOrStderr(), pdiags.Error())
					return silent
				}
				where := "--policy"
				if name == "" {
					where = "scenario " + sc.File
				}
				r = settings.Describe(sim.PolicyName(name, sc), where, set, p)
			} else {
				if r, err = policyInForce(cmd, "", "", set); err != nil {
					return err
				}
				if err := loadFailed(cmd.ErrOrStderr(), r); err != nil {
					return err
				}
			}
			p := r.Policy
			printHeader(cmd.OutOrStdout(), r)
			res, runErr := sim.Run(p, sc, sim.Options{})
			if err := sim.WriteTimelineLayout(cmd.OutOrStdout(), res, sim.Layout{Wide: wide}); err != nil {
				return failure("%v", err)
			}
			if runErr != nil {
				var se *sim.Error
				if errors.As(runErr, &se) {
					fmt.Fprint(cmd.ErrOrStderr(), rules.FormatDiagnostics(map[string][]byte{sc.File: sc.Source}, hcl.Diagnostics{se.Diagnostic()}))
					return silent
				}
				return failure("%v", runErr)
			}
			if out != "" {
				if err := res.Session.WriteFile(out); err != nil {
					return failure("--out: %v", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "session written to %s\n", out)
			}
			if plotFile != "" {
				if err := chart.Plot(plotFile, []replay.PlotSession{replay.SimulatedSession(res)}); err != nil {
					return failure("--plot: %v", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "plot written to %s\n", plotFile)
			}
			return nil
		},
	}
	cmd.Flags().String("policy", "", "built-in policy name or policy file (default: the scenario's policy, else RESETPOLICY_POLICY, else wipe_memory)")
	cmd.Flags().StringVar(&scenarioFile, "scenario", "", "scenario file (default: the built-in scenario)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().BoolVar(&wide, "wide", false, "print notice and reply texts whole instead of cut")
	cmd.Flags().StringVar(&out, "out", "", "write the simulated session to this file as Pi JSONL")
	cmd.Flags().StringVar(&plotFile, "plot", "", "draw context per turn with the policy's thresholds and decisions to FILE.svg or FILE.png")
	return cmd
}
