package main

import (
	"runtime"

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
(.pi/resetpolicy.hcl, .pi/resetpolicy.yaml) are read only when trusted is
true. A policy that fails to load leaves the last good one (or the built-in
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
				Log:     cmd.ErrOrStderr(),
				Preload: true,
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

// serveProcs runs serve on one processor unless GOMAXPROCS says otherwise;
// main calls it for a process started as `resetpolicy serve …`, as Pi
// starts it (in-process runs of the command, as in tests, keep theirs).
// The server answers one request at a time, so a second processor only
// spreads the start's allocations over two sets of per-processor caches:
// with one, the process Pi starts at every session peaks at 18.6 MiB
// resident instead of 19.3, with less CPU time and no later answer
// (docs/performance.md, Start-up). It returns the setting it leaves in
// force.
func serveProcs(env string) int {
	if env == "" {
		runtime.GOMAXPROCS(1)
	}
	return runtime.GOMAXPROCS(0)
}
