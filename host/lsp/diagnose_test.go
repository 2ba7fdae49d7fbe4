package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/rules"
)

// goldenDiag is one diagnostic as `resetpolicy check` printed it into a
// golden file: position, severity and the message (summary, then detail).
type goldenDiag struct {
	file      string
	line, col int
	severity  string
	message   string
}

var (
	headRe    = regexp.MustCompile(`^(\S+):(\d+):(\d+): (error|warning): (.*)$`)
	snippetRe = regexp.MustCompile(`^\s+\d* \| `)
)

func readGolden(t *testing.T, path string) []goldenDiag {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenDiag
	for _, l := range strings.Split(string(b), "\n") {
		if m := headRe.FindStringSubmatch(l); m != nil {
			var g goldenDiag
			fmt.Sscanf(m[2]+" "+m[3], "%d %d", &g.line, &g.col)
			g.file, g.severity, g.message = m[1], m[4], m[5]
			out = append(out, g)
			continue
		}
		if len(out) > 0 && strings.HasPrefix(l, "  ") && !snippetRe.MatchString(l) {
			out[len(out)-1].message += "\n" + strings.TrimPrefix(l, "  ")
		}
	}
	return out
}

// TestDiagnosticsAreChecks: for every invalid policy of the repository,
// the diagnostics published while it is open are the ones `resetpolicy
// check` printed into its golden file — same line, same column (in
// UTF-16 units), same severity, same message — and a problem inside the
// built-in a file uses is shown at its use label, with its place.
func TestDiagnosticsAreChecks(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(repo, "testdata/invalid/*.hcl*"))
	c := newClient(t, Options{})
	n := 0
	for i, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		rel, _ := filepath.Rel(repo, f)
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := readGolden(t, f+".golden")
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			uri := fileURI(f)
			c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "hcl", "version": i + 1, "text": string(b)}})
			got := c.diagnostics(uri, i+1)
			if len(want) == 0 {
				t.Fatal("golden file lists no diagnostic")
			}
			if len(got) < len(want) {
				t.Fatalf("%d diagnostics, golden has %d: %v", len(got), len(want), got)
			}
			lines := strings.Split(string(b), "\n")
			for j, w := range want {
				g := got[j]
				msg := strings.ReplaceAll(g.Message, repo+string(filepath.Separator), "")
				sev := "error"
				if *g.Severity == protocol.DiagnosticSeverityWarning {
					sev = "warning"
				}
				if w.file != rel {
					// In the built-in: at the use label, prefixed with the place.
					prefix := fmt.Sprintf("%s:%d:%d: ", w.file, w.line, w.col)
					if !strings.HasPrefix(msg, prefix) {
						t.Errorf("diagnostic %d: %q, want it to start %q", j, msg, prefix)
					}
					msg = strings.TrimPrefix(msg, prefix)
				} else {
					line := w.line - 1
					char := len(utf16.Encode([]rune(string([]rune(lines[line])[:w.col-1]))))
					if int(g.Range.Start.Line) != line || int(g.Range.Start.Character) != char {
						t.Errorf("diagnostic %d at %d:%d, want %d:%d (%s:%d:%d)", j, g.Range.Start.Line, g.Range.Start.Character, line, char, w.file, w.line, w.col)
					}
				}
				if sev != w.severity || msg != w.message {
					t.Errorf("diagnostic %d:\n%s: %q\nwant\n%s: %q", j, sev, msg, w.severity, w.message)
				}
			}
		})
	}
	if n < 15 {
		t.Fatalf("%d invalid policies; want at least 15", n)
	}
}

// TestBuiltinsUnusedPartsAreNotTheFiles: a built-in message left unused by
// a disable is not the composed file's problem, as check does not report it;
// the file's own unused message is, at its place.
func TestBuiltinsUnusedPartsAreNotTheFiles(t *testing.T) {
	c := newClient(t, Options{})
	uri, text := readFixture(t, "disable_unused.hcl")
	c.open(uri, text)
	if got := c.diagnostics(uri, 1); len(got) != 0 {
		t.Fatalf("%d diagnostics, want none: %v", len(got), got)
	}
	change(c, uri, 2, map[string]any{"text": text + "\nmessage \"orphan\" {\n  text = \"x\"\n}\n"})
	got := c.diagnostics(uri, 2)
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "Unused message\n") || got[0].Range.Start.Line != 8 {
		t.Errorf("diagnostics %+v, want the file's own unused message at line 9", got)
	}
}

// TestCleanFilesAreClean: the repository's policies, test files and
// scenarios, which check, test and simulate pass, get no error.
func TestCleanFilesAreClean(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	var files []string
	for _, g := range []string{"policies/*.hcl", "testdata/compose/*.hcl", "testdata/project/*.hcl", "testdata/project/.pi/*.hcl", "testdata/scenarios/*.scenario.hcl"} {
		m, _ := filepath.Glob(filepath.Join(repo, g))
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("%d files", len(files))
	}
	c := newClient(t, Options{})
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		uri := fileURI(f)
		c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "hcl", "version": i + 1, "text": string(b)}})
		for _, d := range c.diagnostics(uri, i+1) {
			if *d.Severity == protocol.DiagnosticSeverityError {
				t.Errorf("%s:%d:%d: %s", f, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
			}
		}
	}
}

// TestBuiltinRunsBounded: the cache of built-ins loaded with a test file's
// values holds at most maxBuiltinRuns, and a load with a diagnostic is not
// kept.
func TestBuiltinRunsBounded(t *testing.T) {
	defer func(n int) { maxBuiltinRuns = n }(maxBuiltinRuns)
	maxBuiltinRuns = 3
	builtinRunsMu.Lock()
	builtinRuns = nil // what other tests left
	builtinRunsMu.Unlock()
	for i := 0; i < 10; i++ {
		p, ds := loadBuiltinWith("wipe_memory", []rules.Override{{Name: "warning_runway", Raw: fmt.Sprint(1000 + i), Origin: "t"}})
		if p == nil || ds.HasErrors() {
			t.Fatal(ds)
		}
		builtinRunsMu.Lock()
		n := len(builtinRuns)
		builtinRunsMu.Unlock()
		if n > maxBuiltinRuns {
			t.Fatalf("%d cached, bound %d", n, maxBuiltinRuns)
		}
	}
	if _, ds := loadBuiltinWith("wipe_memory", []rules.Override{{Name: "warning_runway", Raw: "-1", Origin: "t"}}); !ds.HasErrors() {
		t.Fatal("a negative runway loads")
	}
	builtinRunsMu.Lock()
	defer builtinRunsMu.Unlock()
	for k := range builtinRuns {
		if strings.Contains(k, `"-1"`) {
			t.Error("a load with a diagnostic was cached")
		}
	}
}
