//go:build !nolsp

package main

import (
	"context"
	"io"

	"github.com/resetpolicy/resetpolicy/host/lsp"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() {
	extraCommands = append(extraCommands, func(*viper.Viper) *cobra.Command { return newLSPCmd() })
}

func newLSPCmd() *cobra.Command {
	var stdio bool
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Serve editors over the Language Server Protocol on stdin/stdout",
		Long: `lsp is a language server (LSP 3.16/3.17 base protocol, positions in UTF-16) on
stdin and stdout for policy files (*.hcl, .pi/resetpolicy.hcl), test files
(*.test.hcl) and scenario files (*.scenario.hcl): the problems check, test and
simulate report, as you type; completion of facts, slots, params, messages,
events, effects and their arguments; hover with the contract's docs and the
params in force; go to definition and references, into a built-in's source
for a composed policy; formatting as fmt does it; and the outline.

Logs go to stderr; stdout carries only the protocol. See README, "Editor
support", for VS Code, Neovim and Helix.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s := lsp.New(lsp.Options{Version: buildVersion().Version, Log: cmd.ErrOrStderr()})
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			// LSP: exit without shutdown first ends with status 1.
			if err := s.Run(ctx, stdioStream{cmd.InOrStdin(), cmd.OutOrStdout()}); err != nil {
				return failure("%v", err)
			}
			return nil
		},
	}
	// Clients such as vscode-languageclient pass --stdio; it is the only
	// transport, so the flag changes nothing.
	cmd.Flags().BoolVar(&stdio, "stdio", true, "speak on stdin/stdout (the only transport)")
	return cmd
}

type stdioStream struct {
	io.Reader
	io.Writer
}

func (stdioStream) Close() error { return nil }
