package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// TestCommandDocs keeps docs/commands/ — one page per command, made by
// cobra's own Markdown generator from each command's help — in step with
// the commands: a page that differs from what the help says now fails
// the test, and -update rewrites them all.
func TestCommandDocs(t *testing.T) {
	root := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	root.DisableAutoGenTag = true
	// cobra adds its completion command when the command line runs; the
	// pages document it too.
	root.InitDefaultCompletionCmd()
	dir := filepath.Join("docs", "commands")
	want := map[string][]byte{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		c.DisableAutoGenTag = true
		var b bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &b, func(name string) string { return name }); err != nil {
			t.Fatal(err)
		}
		want[strings.ReplaceAll(c.CommandPath(), " ", "_")+".md"] = b.Bytes()
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, p := range have {
		if _, ok := want[filepath.Base(p)]; !ok {
			t.Errorf("%s documents no command (go test ./cmd/resetpolicy -run TestCommandDocs -update)", p)
		}
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is stale or missing: go test ./cmd/resetpolicy -run TestCommandDocs -update", filepath.Join(dir, name))
		}
	}
}

// TestDocLinks: every relative link of the README and the pages under
// docs/ names a file or folder that exists, so moving a page cannot leave
// the front page pointing nowhere.
func TestDocLinks(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, target)
			}
		}
	}
}

// TestDocExamples runs every example the README and the pages under docs/
// show as a command and its output — a fenced block whose first line is
// "$ resetpolicy ARGS" — and requires the output shown, byte for byte, so
// an example cannot drift from what the command prints. The arguments are
// split at spaces (no quoting); stdout and stderr are compared together.
// An example may leave things out with "…": a line of "…" alone stands for
// any lines, and "…" within a line for any text.
func TestDocExamples(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md", filepath.Join("rules", "README.md"))
	n := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range commandExamples(string(b)) {
			n++
			stdout, stderr, _ := runCLI(t, "", ex.args...)
			if got := stdout + stderr; !elidedMatch(strings.Split(ex.want, "\n"), strings.Split(got, "\n")) {
				t.Errorf("%s:%d: $ resetpolicy %s prints\n%s\nthe page shows\n%s", page, ex.line, strings.Join(ex.args, " "), got, ex.want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no command examples found")
	}
}

type commandExample struct {
	line int // of the "$ resetpolicy" line, from 1
	args []string
	want string
}

// commandExamples finds the fenced blocks of a page that start with
// "$ resetpolicy ".
func commandExamples(page string) []commandExample {
	var out []commandExample
	lines := strings.Split(page, "\n")
	for i := 0; i+1 < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i+1], "$ resetpolicy ")
		if !strings.HasPrefix(lines[i], "```") || !ok {
			continue
		}
		ex := commandExample{line: i + 2, args: strings.Fields(cmd)}
		for j := i + 2; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			ex.want += lines[j] + "\n"
		}
		out = append(out, ex)
	}
	return out
}

// elidedMatch reports whether got's lines are want's, where a want line of
// "…" alone matches any lines and "…" within a line any text.
func elidedMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "…" {
		for i := 0; i <= len(got); i++ {
			if elidedMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && elidedLine(want[0], got[0]) && elidedMatch(want[1:], got[1:])
}

// elidedLine reports whether line is want with each "…" standing for any
// text.
func elidedLine(want, line string) bool {
	parts := strings.Split(want, "…")
	if !strings.HasPrefix(line, parts[0]) {
		return false
	}
	line = line[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(line, p)
		}
		k := strings.Index(line, p)
		if k < 0 {
			return false
		}
		line = line[k+len(p):]
	}
	return line == ""
}

func TestElidedMatch(t *testing.T) {
	tests := []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a\n…\nd", "a\nb\nc\nd", true},
		{"a\n…\nd", "a\nd", true},
		{"a\n…\nd", "a\nb\nc", false},
		{"x 1…3 y", "x 123 y", true},
		{"x 1…3 y", "x 12 y", false},
		{"note: …", "note: anything", true},
		{"note: …", "nota: anything", false},
		{"a…b…c", "aXbYc", true},
		{"a…b…c", "aXcYb", false},
	}
	for _, tt := range tests {
		if got := elidedMatch(strings.Split(tt.want, "\n"), strings.Split(tt.got, "\n")); got != tt.ok {
			t.Errorf("%q against %q: %v, want %v", tt.want, tt.got, got, tt.ok)
		}
	}
}

// TestReadmeListsEveryCommand: the README's command table has a row for
// every command the binary has, so a new command cannot stay unlisted.
func TestReadmeListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		if !strings.Contains(string(b), "\n| `"+c.Name()+" ") && !strings.Contains(string(b), "\n| `"+c.Name()+"`") {
			t.Errorf("the README's command table has no row for %s", c.Name())
		}
	}
}

// TestReadmeNamesEveryDependency: every module go.mod requires directly has
// its line in the README's Dependencies table (a major version suffix
// aside), so a new dependency comes with its reason.
func TestReadmeNamesEveryDependency(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, deps, _ := strings.Cut(string(readme), "\n## Dependencies\n")
	n := 0
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || !strings.Contains(f[0], ".") || strings.Contains(line, "// indirect") {
			continue
		}
		n++
		path := f[0]
		if i := strings.LastIndex(path, "/v"); i > 0 && strings.Trim(path[i+2:], "0123456789") == "" {
			path = path[:i]
		}
		if !strings.Contains(deps, "`"+path) {
			t.Errorf("the README's Dependencies do not name %s", f[0])
		}
	}
	if n < 10 {
		t.Fatalf("%d direct dependencies read from go.mod", n)
	}
}
