package main

import (
	"github.com/resetpolicy/resetpolicy/host/rpc"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

func newServeCmd(v *viper.Viper) *cobra.Command {
	var stdio bool
	cmd := &cobra.Command{
		Use:   "serve --stdio",
		Short: "Serve a host (the Pi extension) over JSON-RPC 2.0 on stdin/stdout",
		Long: `serve speaks newline-delimited JSON-RPC 2.0 on stdin and stdout: one request
per line, one response per line. Logs go to stderr; stdout carries only the
protocol. EOF on stdin ends it.

Methods: initialize {projectDir, trusted}; decide {session, event};
snapshot {session}; restore {session, state}; closeSession {session}; and the
boundary mechanics the host needs (boundary, checkpoint, compactionReset,
committed, inspectTail, repair, project, activeWindow, findCompactionReset,
compactedAtLeaf, suppressTreeSummary), saveParam and clearParam.

initialize loads the settings for the project (see 'resetpolicy config
--help' for their precedence) and the policy they name; the project's files
(.resetpolicy.hcl and .resetpolicy.yaml, or the same in .pi/) are read only
when trusted is true. initialize's host ("pi", the default, or "opencode")
checks the policy for that host: a policy whose hosts leave it out is
refused, and each rule that leans on what the host cannot do is a warning. A policy that fails to load leaves the last good one (or the built-in
wipe_memory) in force and the result carries its diagnostics. Its property
and verify blocks are not read: they are verify's, and 'resetpolicy check'
reports a mistake in them.

The settings flags below apply to every initialize, above the environment.`,
		Example: `  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"decide","params":{"session":"s1","event":{"event":"tool","name":"wipe_memory"}}}' | resetpolicy serve --stdio`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !stdio {
				return usage("serve needs --stdio (the only transport)")
			}
			fs := cmd.Flags()
			s := rpc.New(rpc.Options{
				Settings: func(dir string, trusted bool) (*settings.Settings, error) {
					return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, Flags: fs})
				},
				Log: cmd.ErrOrStderr(),
			})
			defer s.Close()
			if err := s.Serve(cmd.InOrStdin(), cmd.OutOrStdout()); err != nil {
				return failure("serve: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&stdio, "stdio", false, "serve on stdin and stdout (required)")
	settings.AddFlags(cmd.Flags())
	return cmd
}
