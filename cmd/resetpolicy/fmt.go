package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/spf13/cobra"
)

func newFmtCmd() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "fmt [-check] [FILE|DIR...]",
		Short: "Rewrite policy and test files in canonical format",
		Long: `fmt rewrites .hcl files (policies and *.test.hcl) in HCL's canonical format.
Directories are walked; the default is the current directory. JSON files are
left alone. A file that does not parse is reported and left unchanged.

With -check nothing is written: fmt lists the files that are not formatted and
exits 1 if there are any.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			files, err := policyFiles(args, func(p string) bool { return strings.HasSuffix(p, ".hcl") })
			if err != nil {
				return err
			}
			unformatted, broken := 0, 0
			for _, f := range files {
				src, diags := rules.ReadHCLFile(f, "file")
				if diags.HasErrors() {
					return failure("%s", strings.TrimRight(rules.FormatDiagnostics(nil, diags), "\n"))
				}
				if _, diags := rules.ParseHCL(src, f); diags.HasErrors() {
					broken++
					fmt.Fprint(cmd.ErrOrStderr(), rules.FormatDiagnostics(map[string][]byte{f: src}, diags))
					continue
				}
				out := hclwrite.Format(src)
				if bytes.Equal(out, src) {
					continue
				}
				unformatted++
				if check {
					fmt.Fprintln(cmd.OutOrStdout(), f)
					continue
				}
				info, _ := os.Stat(f)
				if err := fileio.WriteOutput(f, out, info.Mode().Perm()); err != nil {
					return failure("%v", err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			switch {
			case broken > 0:
				return failure("%d file(s) do not parse", broken)
			case check && unformatted > 0:
				return failure("%d file(s) are not formatted; run resetpolicy fmt", unformatted)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "list unformatted files and exit 1 if any; write nothing")
	return cmd
}
