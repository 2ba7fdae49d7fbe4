package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// deep is how far the hostile files below nest: far enough that HCL's
// parsers overflow the goroutine stack (a fatal error, not a panic) or run
// for minutes without the bound.
const deep = 100_000

func loadText(name, text string) (*rules.Policy, rules.Diagnostics) {
	return rules.Load(rules.Source{Name: name, Bytes: []byte(text)}, rules.WithBuiltins(policies.Source))
}

func wantSummary(t *testing.T, diags rules.Diagnostics, summary string) {
	t.Helper()
	if !diags.HasErrors() {
		t.Fatalf("no error; want %q", summary)
	}
	if diags.Diagnostics[0].Summary != summary {
		t.Fatalf("first diagnostic %q; want %q:\n%s", diags.Diagnostics[0].Summary, summary, diags.Error())
	}
}

func TestNestingIsBoundedBeforeParsing(t *testing.T) {
	cases := []struct{ name, file, text string }{
		{"native brackets", "p.hcl", "a = " + strings.Repeat("[", deep)},
		{"native parentheses", "p.hcl", "a = " + strings.Repeat("(", deep)},
		{"native braces", "p.hcl", "a = " + strings.Repeat("{a=", deep)},
		{"native blocks", "p.hcl", strings.Repeat("a {\n", deep)},
		{"native unary not", "p.hcl", "a = " + strings.Repeat("!", 10*deep) + "true"},
		{"native unary minus across lines", "p.hcl", "a = (" + strings.Repeat("-\n", deep) + "1)"},
		{"native splats", "p.hcl", "a = x" + strings.Repeat("[*]", deep)},
		{"native conditionals", "p.hcl", "a = " + strings.Repeat("x ? 1 : ", deep) + "1"},
		{"native templates", "p.hcl", "a = \"" + strings.Repeat("${\"", deep)},
		{"native template directives", "p.hcl", "a = \"" + strings.Repeat("%{if x}", deep)},
		{"native heredocs", "p.hcl", "a = " + strings.Repeat("<<E\n${", deep)},
		{"native hidden by closers in strings", "p.hcl", "a = " + strings.Repeat(`["]",`, deep)},
		{"native hidden by stray closers", "p.hcl", "a = \"${)" + strings.Repeat("[", deep)},
		{"JSON arrays", "p.hcl.json", `{"a":` + strings.Repeat("[", 10*deep)},
		{"JSON objects", "p.hcl.json", strings.Repeat(`{"a":`, deep)},
		{"JSON hidden by stray closers", "p.hcl.json", strings.Repeat(`[}`, deep)},
		{"JSON string template", "p.hcl.json", `{"a":"${` + strings.Repeat(`(`, deep) + `"}`},
		{"JSON escaped template", "p.hcl.json", `{"a":"${` + strings.Repeat(`\u0028`, deep) + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, diags := loadText(c.file, c.text)
			wantSummary(t, diags, "Nesting too deep")
			d := diags.Diagnostics[0]
			if d.Subject == nil || d.Subject.Filename != c.file || d.Subject.Start.Line < 1 {
				t.Fatalf("diagnostic without a position: %+v", d)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("took %v", el)
			}
		})
	}
}

func TestNestingBoundCountsCodeNotText(t *testing.T) {
	// Brackets and operators in strings, heredocs and comments are text.
	text := strings.Replace(small, `description = "a small policy"`,
		`description = "`+strings.Repeat("([{!-?", 400)+`"`, 1)
	text = "# " + strings.Repeat("(-", 400) + "\n/* " + strings.Repeat("[", 400) + " */\n" + text
	text += "message \"m\" {\n  text = <<EOT\n" + strings.Repeat("((((!!!! ----", 100) + "\nEOT\n}\n"
	if _, diags := loadText("ok.hcl", text); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	// Exactly at the bound is allowed, one more is not.
	at := "a = " + strings.Repeat("[", rules.MaxNesting) + strings.Repeat("]", rules.MaxNesting) + "\n"
	if d := rules.CheckHCL([]byte(at), "p.hcl"); d.HasErrors() {
		t.Fatalf("depth %d refused: %v", rules.MaxNesting, d)
	}
	over := "a = " + strings.Repeat("[", rules.MaxNesting+1) + strings.Repeat("]", rules.MaxNesting+1) + "\n"
	if d := rules.CheckHCL([]byte(over), "p.hcl"); !d.HasErrors() {
		t.Fatalf("depth %d accepted", rules.MaxNesting+1)
	}
	// Every built-in and every HCL file under testdata is well inside.
	for _, n := range policies.Names() {
		src, _ := policies.Source(n)
		if d := rules.CheckHCL(src.Bytes, src.Name); d.HasErrors() {
			t.Errorf("%s: %v", n, d)
		}
	}
	files, _ := filepath.Glob("../testdata/*/*.hcl")
	more, _ := filepath.Glob("../testdata/*/*/*.hcl")
	for _, f := range append(files, more...) {
		b, _ := os.ReadFile(f)
		if d := rules.CheckHCL(b, f); d.HasErrors() {
			t.Errorf("%s: %v", f, d)
		}
	}
}

func TestFileSizeIsBoundedBeforeParsing(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hcl")
	// Valid HCL that would parse: the bound, not a syntax error, refuses it.
	body := "# " + strings.Repeat("x", rules.MaxFileBytes) + "\n"
	if err := os.WriteFile(big, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags := rules.LoadFile(big)
	wantSummary(t, diags, "File too large")
	if !strings.Contains(diags.Error(), "4194304") {
		t.Fatalf("the limit is not named:\n%s", diags.Error())
	}
	_, diags = loadText("big.hcl", body)
	wantSummary(t, diags, "File too large")

	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan rules.Diagnostics, 1)
	go func() { _, d := rules.LoadFile(fifo); done <- d }()
	select {
	case d := <-done:
		wantSummary(t, d, "Cannot read policy file")
		if !strings.Contains(d.Error(), "not a regular file") {
			t.Fatal(d.Error())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}

func TestDiagnosticFormattingIsLinearAndCapped(t *testing.T) {
	const n = 20_000
	var src strings.Builder
	diags := make(hcl.Diagnostics, 0, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&src, "attribute_%d = nope\n", i)
		rng := hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: i, Column: 15}, End: hcl.Pos{Line: i, Column: 19}}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Bad", Detail: "bad value", Subject: &rng})
	}
	sources := map[string][]byte{"f.hcl": []byte(src.String())}
	start := time.Now()
	out := rules.FormatDiagnostics(sources, diags)
	// Every diagnostic is formatted whatever the cap, so time all of them.
	all := rules.FormatDiagnosticsN(sources, diags, -1)
	el := time.Since(start)
	if el > 500*time.Millisecond {
		t.Fatalf("formatting %d diagnostics took %v", n, el)
	}
	if got := strings.Count(all, ": error: Bad"); got != n {
		t.Fatalf("uncapped: %d diagnostics printed, want %d", got, n)
	}
	if !strings.Contains(all, "  20000 | attribute_20000 = nope\n") {
		t.Fatal("the last snippet is wrong")
	}
	if got := strings.Count(out, ": error: Bad"); got != rules.MaxDiagnosticsShown {
		t.Fatalf("capped: %d diagnostics printed, want %d", got, rules.MaxDiagnosticsShown)
	}
	if !strings.HasSuffix(out, fmt.Sprintf("and %d more\n", n-rules.MaxDiagnosticsShown)) {
		t.Fatalf("no count of the rest:\n%s", out[len(out)-200:])
	}
}

func TestSnippetOfALongLineIsAWindow(t *testing.T) {
	line := strings.Repeat("a", 5000) + "BAD" + strings.Repeat("b", 5000)
	rng := hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: 1, Column: 5001}, End: hcl.Pos{Line: 1, Column: 5004}}
	out := rules.FormatDiagnostics(map[string][]byte{"f.hcl": []byte(line)},
		hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad", Subject: &rng}})
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two snippet lines:\n%s", out)
	}
	if n := len([]rune(lines[1])); n > rules.MaxSnippetWidth+20 {
		t.Fatalf("snippet line of %d characters", n)
	}
	caret := strings.Index(lines[2], "^^^")
	if caret < 0 || []rune(lines[1])[len([]rune(lines[2][:caret]))] != 'B' {
		t.Fatalf("caret not under BAD:\n%s\n%s", lines[1], lines[2])
	}
}
