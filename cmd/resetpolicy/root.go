package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Exit codes: 0 ok, 1 a policy or test failure, 2 a usage error, 3 a
// verification cut by a bound before it found anything (incomplete:
// neither verified nor failed).
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitIncomplete = 3
)

// exitError carries an exit code; its message, if any, has been printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func failure(format string, args ...any) error {
	return &exitError{code: exitFailure, msg: fmt.Sprintf(format, args...)}
}

func usage(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// silent is a failure whose details are already printed.
var silent = &exitError{code: exitFailure}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	v := newViper()
	root := rootCommand(stdin, stdout, stderr)
	root.Version = buildVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newCheckCmd(), newFmtCmd(), newPoliciesCmd(), newEvalCmd(v), newTestCmd())
	for _, extra := range extraCommands {
		root.AddCommand(extra(v))
	}
	addCompletions(root)
	return root
}

// newServeRoot is the root for a command line that starts with serve, as
// Pi starts the process at every session: the root with serve alone,
// which parses and helps alike (TestServeRootIsTheRootsServe), without
// building the other commands' flags and the build's version, a
// twenty-fifth of the start (docs/performance.md, Start-up).
func newServeRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := rootCommand(stdin, stdout, stderr)
	root.AddCommand(newServeCmd(newViper()))
	return root
}

func newViper() *viper.Viper {
	v := viper.New()
	v.SetEnvPrefix("RESETPOLICY")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	v.SetDefault("policy", "wipe_memory")
	return v
}

// rootCommand is the root command with no subcommand.
func rootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "resetpolicy",
		Short: "Rules for a coding agent's context-window lifecycle, in HCL",
		Long: `resetpolicy decides a coding agent's context-window lifecycle: when to remind
and warn the model, when to cut or summarise its window, and what happens on
abort, error, overflow, queued input and failed summaries. The decisions live
in HCL policy files; the engine evaluates them against lifecycle facts that the
host (first of all the Pi coding agent) reports.

Built-in policies: wipe_memory (the default), new_context, autocompacter.
Run 'resetpolicy policies' to see them and their params.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usage("%v\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	return root
}

// singleDashLongFlags accepts Go-style single-dash long flags (`fmt -check`,
// `test -run REGEXP`) by rewriting them to the double-dash form cobra
// parses. Only names of long flags are rewritten, so shorthands such as -v
// keep their meaning.
func singleDashLongFlags(root *cobra.Command, args []string) []string {
	// Collecting the flags of every command costs a sixtieth of serve's
	// start (cobra merges each command's flag sets), so it is done only
	// when an argument could be one.
	candidate := func(a string) bool { return len(a) > 2 && a[0] == '-' && a[1] != '-' }
	if !slices.ContainsFunc(args, candidate) {
		return slices.Clone(args)
	}
	long := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if candidate(a) {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && long[name] {
				out[i] = "-" + a
			}
		}
	}
	return out
}

// extraCommands are registered by other files of this package.
var extraCommands []func(*viper.Viper) *cobra.Command

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if colorFor(stdout, os.Getenv) {
		cw := &colorWriter{w: stdout}
		defer cw.Flush()
		stdout = cw
	}
	if colorFor(stderr, os.Getenv) {
		cw := &colorWriter{w: stderr}
		defer cw.Flush()
		stderr = cw
	}
	if len(args) > 0 && args[0] == "serve" {
		return execute(newServeRoot(stdin, stdout, stderr), args, stderr)
	}
	return execute(newRoot(stdin, stdout, stderr), args, stderr)
}

// execute runs the command line args under root and returns the exit
// code.
func execute(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(singleDashLongFlags(root, args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "resetpolicy:", ee.msg)
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad args) are usage errors,
	// pointing at the help of the command that refused them.
	fmt.Fprintf(stderr, "resetpolicy: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
	return exitUsage
}
