package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
	"github.com/spf13/cobra"
)

func newFmtCmd() *cobra.Command {
	var check, diff bool
	cmd := &cobra.Command{
		Use:   "fmt [-check] [-diff] [FILE|DIR...]",
		Short: "Rewrite policy and test files in canonical format",
		Long: `fmt rewrites .hcl files (policies and *.test.hcl) in HCL's canonical format.
Directories are walked; the default is the current directory. JSON files are
left alone. A file that does not parse is reported and left unchanged.

With -check nothing is written: fmt lists the files that are not formatted and
exits 1 if there are any. With -diff nothing is written either: fmt prints
each unformatted file's changes as a unified diff (as gofmt -d does); with
both, the diffs and exit status 1.

A path that does not exist is a usage error (exit 2).`,
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
				out := hclfmt.Format(src)
				if bytes.Equal(out, src) {
					continue
				}
				unformatted++
				if diff {
					text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
						A: difflib.SplitLines(string(src)), B: difflib.SplitLines(string(out)),
						FromFile: f + ".orig", ToFile: f, Context: 3,
					})
					if err != nil {
						return failure("%v", err)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "diff %s.orig %s\n%s", f, f, text)
					continue
				}
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
	cmd.Flags().BoolVar(&diff, "diff", false, "print the changes as unified diffs instead of writing them")
	return cmd
}
