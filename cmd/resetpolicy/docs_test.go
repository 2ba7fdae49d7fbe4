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
