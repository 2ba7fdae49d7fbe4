package main

import (
	"os"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/rpc"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// limitsTable returns the rows of the "Limits and safety" table in
// docs/limits.md.
func limitsTable(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "# Limits and safety")
	if i < 0 {
		t.Fatal("docs/limits.md has no Limits and safety section")
	}
	s = s[i:]
	start := strings.Index(s, "| bound | value |")
	end := strings.Index(s[start:], "\n\n")
	return strings.Split(s[start:start+end], "\n")[2:]
}

// Every bound the README's table names has the value the table gives: if a
// constant moves, or a row, this fails. Each case names the row by its
// identifier and says the value as the row writes it.
func TestReadmeLimitsAreTheConstants(t *testing.T) {
	rows := limitsTable(t)
	cases := []struct {
		ident string // how the row names the bound
		got   int64  // the constant
		want  int64  // its value
		text  string // the value as the table writes it
	}{
		{"`rules.MaxFileBytes`", rules.MaxFileBytes, 4 << 20, "4 MiB (4,194,304 bytes)"},
		{"`rules.MaxNesting`", rules.MaxNesting, 256, "256 levels"},
		{"`settings.MaxConfigBytes`", settings.MaxConfigBytes, 1 << 20, "1 MiB"},
		{"`rpc.MaxSettingsShown`", rpc.MaxSettingsShown, 20, "20 params"},
		{"`MaxStateFile`", MaxStateFile, 16 << 20, "16 MiB"},
		{"`lang.DefaultMaxNodes`", lang.DefaultMaxNodes, 256, "256 nodes"},
		{"`lang.DefaultMaxBytes`", lang.DefaultMaxBytes, 2048, "2,048 bytes"},
		{"`rules.MaxDiagnosticsShown`", rules.MaxDiagnosticsShown, 20, "| 20 |"},
		{"`rules.MaxSnippetWidth`", rules.MaxSnippetWidth, 120, "120 characters"},
		{"`rpc.DefaultMaxLine`", rpc.DefaultMaxLine, 1 << 20, "1 MiB"},
		{"`rpc.DefaultMaxLine`", maxLine, 1 << 20, "one `eval` input line"},
		{"`lang.MaxWorkBytes`", lang.MaxWorkBytes, 16 << 20, "16 MiB"},
		{"`lang.MaxValueBytes`", lang.MaxValueBytes, 1 << 20, "1 MiB"},
		{"`lang.MaxFoldedBytes`", lang.MaxFoldedBytes, 16 << 20, "`lang.MaxFoldedBytes`: 16 MiB"},
		{"`rpc.DefaultMaxSessions`", rpc.DefaultMaxSessions, 1024, "1,024"},
		{"`rpc.DefaultMaxSessionBytes`", rpc.DefaultMaxSessionBytes, 64 << 20, "64 MiB"},
		{"`rpc.MaxSessionName`", rpc.MaxSessionName, 256, "256 bytes"},
		{"derived values", lang.InlineWeight, 32, "memoised above 32 syntax nodes"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s is %d; the README says %s (%d)", c.ident, c.got, c.text, c.want)
		}
		found := false
		for _, r := range rows {
			if strings.Contains(r, c.ident) {
				found = true
				if !strings.Contains(r, c.text) {
					t.Errorf("the row of %s does not say %q:\n%s", c.ident, c.text, r)
				}
			}
		}
		if !found {
			t.Errorf("no row names %s", c.ident)
		}
	}
}

// The bounds the Pi extension keeps are read from its source.
func TestReadmeLimitsOfTheExtension(t *testing.T) {
	rows := strings.Join(limitsTable(t), "\n")
	for _, c := range []struct{ file, code, row string }{
		{"host/pi/src/host.ts", "Number(process.env.RESETPOLICY_TIMEOUT_MS) || 10000", "decision timeout in Pi (`RESETPOLICY_TIMEOUT_MS`) | 10 s"},
		{"host/pi/src/engine.ts", "export const MAX_LOG_LINE = 4096;", "(`MAX_LOG_LINE`) | 4,096 characters"},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.code) {
			t.Errorf("%s no longer holds %q", c.file, c.code)
		}
		if !strings.Contains(rows, c.row) {
			t.Errorf("no row says %q", c.row)
		}
	}
}
