package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/resetpolicy/resetpolicy/host/rpc"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newConfigCmd) }

func newConfigCmd(v *viper.Viper) *cobra.Command {
	var (
		project   string
		untrusted bool
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "config [--project DIR] [--untrusted] [--json]",
		Short: "Print the effective settings and where each value comes from",
		Long: `config prints the effective settings (policy, decision_log and param
overrides), each with its source, then the params in force of the policy they
name, each with its value and origin.

Precedence, lowest first; a later source wins key by key, param by param:

  1. built-in defaults          policy wipe_memory, no overrides, no decision log
  2. user config file           $XDG_CONFIG_HOME/resetpolicy/config.yaml
                                (or RESETPOLICY_CONFIG, or --config)
  3. project, when trusted      .resetpolicy.hcl or .pi/resetpolicy.hcl
                                (becomes the policy; the values it sets
                                win over the user config's), then
                                .resetpolicy.yaml or .pi/resetpolicy.yaml;
                                the files at the root are read by every
                                host, and two of one kind are an error
  4. environment                RESETPOLICY_POLICY, RESETPOLICY_DECISION_LOG,
                                RESETPOLICY_PARAM_<NAME>
  5. flags                      --policy, --set NAME=VALUE, --decision-log

A config file is YAML with the keys policy, params and decision_log:

  policy: wipe_memory
  params:
    warning_runway: 8192
  decision_log: ~/.local/state/resetpolicy/decisions.jsonl

A value a higher source overrides is listed under the param as "shadows".

The project is the current directory unless --project names one; it is read
as trusted unless --untrusted shows what an untrusted session gets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if project == "" {
				wd, err := os.Getwd()
				if err != nil {
					return failure("%v", err)
				}
				project = wd
			} else if info, err := os.Stat(project); err != nil || !info.IsDir() {
				return usage("--project %s: no such directory", project)
			}
			r, err := settings.Resolve(settings.Options{ProjectDir: project, Trusted: !untrusted, Flags: cmd.Flags()})
			if err != nil {
				return failure("%v", err)
			}
			s, p, diags := r.Settings, r.Policy, r.Diagnostics
			out := cmd.OutOrStdout()
			if asJSON {
				doc := map[string]any{"settings": s.Entries(), "files": s.Files}
				if p != nil {
					doc["policy"] = p.Name
					doc["params"] = rpc.ParamsInForce(p)
					doc["resolved"] = r.JSON()
				}
				if diags.HasErrors() {
					doc["error"] = strings.TrimRight(diags.Error(), "\n")
				}
				b, err := json.MarshalIndent(doc, "", "  ")
				if err != nil {
					return failure("%v", err)
				}
				fmt.Fprintf(out, "%s\n", b)
				if diags.HasErrors() {
					return silent
				}
				return nil
			}
			inForce := map[string]string{}
			for _, prm := range r.Params() {
				inForce["params."+prm.Name] = prm.Origin
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, e := range s.Entries() {
				val := e.Value
				if val == "" {
					val = "(none)"
				}
				origin := e.Origin
				if o := s.Policy.Origin; e.Key == settings.KeyPolicy && o.Where == s.Policy.Text {
					origin = o.Layer.String() // the file is the value: say it once
				}
				if o, ok := inForce[e.Key]; ok && o != e.Origin {
					origin += " (shadowed by " + o + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Key, val, origin)
			}
			tw.Flush()
			if len(diags.Diagnostics) > 0 {
				fmt.Fprint(cmd.ErrOrStderr(), diags.Error())
			}
			if diags.HasErrors() {
				return silent
			}
			fmt.Fprintf(out, "\nparams in force (policy %s):\n", p.Name)
			tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			for _, prm := range r.Params() {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", prm.Name, prm.Value, prm.Origin)
				for _, sh := range prm.Shadowed {
					fmt.Fprintf(tw, "  \t\tshadows %s=%s from %s\n", prm.Name, sh.Value, sh.Origin)
				}
			}
			tw.Flush()
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "project directory (default: the current directory)")
	cmd.Flags().BoolVar(&untrusted, "untrusted", false, "do not read the project's files, as for an untrusted project")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	settings.AddFlags(cmd.Flags())
	return cmd
}
