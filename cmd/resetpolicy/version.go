package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() {
	extraCommands = append(extraCommands, func(*viper.Viper) *cobra.Command { return newVersionCmd() })
}

// versionInfo is what `version` reports.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Go       string `json:"go"`
	Contract string `json:"contract"`
}

func buildVersion() versionInfo {
	v := versionInfo{Module: "github.com/resetpolicy/resetpolicy", Version: "(devel)", Go: runtime.Version(), Contract: contract.Version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			v.Module = bi.Main.Path
		}
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
	}
	return v
}

func (v versionInfo) String() string {
	return fmt.Sprintf("resetpolicy %s (%s), %s, host contract %s", v.Version, v.Module, v.Go, v.Contract)
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the module version, the Go version and the host contract version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), buildVersion())
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), buildVersion())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON")
	return cmd
}
