package hclfmt

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
)

// repoHCLFiles is every .hcl file of the module, read from the module root
// down, .node and node_modules left out.
func repoHCLFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	root, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			tb.Fatal("no go.mod above the package")
		}
		root = parent
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".node", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".hcl") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[rel] = src
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func TestFormatRepoFiles(t *testing.T) {
	files := repoHCLFiles(t)
	// policies/, testdata/, rules/testfile/testdata and others: a walk
	// that found almost nothing would pass without checking anything.
	if len(files) < 50 {
		t.Fatalf("found %d .hcl files under the module root, want at least 50", len(files))
	}
	for name, src := range files {
		if got, want := Format(src), hclwrite.Format(src); !bytes.Equal(got, want) {
			t.Errorf("%s: Format differs from hclwrite.Format\ngot:\n%s\nwant:\n%s", name, got, want)
		}
	}
}

// formatCases exercise the formatter's branches; each is checked against
// hclwrite.Format, and FuzzFormat starts from them too.
var formatCases = []struct{ name, src string }{
	{"empty", ""},
	{"newline only", "\n"},
	{"blank lines", "\n\n\n"},
	{"no final newline", "a=1"},
	{"unaligned equals without final newline", "a = 1\nlong_name = 2"},
	{"spaces only", "   "},
	{"unaligned equals", "a = 1\nlong_name = 2\nbb=3\n"},
	{"equals run broken by blank line", "a = 1\nlong_name = 2\n\nbb = 3\nc = 4\n"},
	{"equals run broken by block", "a = 1\nb {\n  cc = 2\n  d = 3\n}\nlonger = 4\n"},
	{"nested blocks", "rule \"x\" {\nwhen {\nevent = \"a\"\nthen {\nk = 1\n}\n}\n}\n"},
	{"block labels", "resource \"a\" \"b\" {\n}\nlabel   x   \"y\"   {}\n"},
	{"one-line block", "a { b = 1 }\nc {}\nd {  }\n"},
	{"over-indented", "      a = 1\n    b {\n          c = 2\n       }\n"},
	{"line comments", "# one\n// two\na = 1 # trailing\nlonger_name = 2 // trailing too\n"},
	{"comment run", "a = 1 # x\nbbbb = 22 # y\n\nccc = 3 # z\n"},
	{"comment after block opener", "a { # x\n  b = 1 # y\n}\n"},
	{"comment lines only", "# a\n    # b\n\t# c\n"},
	{"block comments", "/* lead */ a = 1\nb = /* mid */ 2\nc = 3 /* trail */\n/*\nmulti\nline\n*/\n"},
	{"block comment in lead of assignment", "a /* x */ = 1\nlonger = 2\n"},
	{"multi-line block comment in lead", "a /* x\ny\nz */ = 1\nlonger = 2\n"},
	{"heredoc", "a = <<EOT\nhello\n  world\nEOT\nb = 2\n"},
	{"indented heredoc", "x {\na = <<-EOT\n    hello\n    ${name}\n    EOT\nlonger = 1\n}\n"},
	{"heredoc with brackets", "a = <<EOT\n{ [ (\nEOT\nb = [\n1,\n]\n"},
	{"heredoc then comment", "a = <<EOT\nx\nEOT # c\nbb = 1 # d\n"},
	{"heredoc in call", "a = f(<<EOT\nx\nEOT\n)\n"},
	{"heredoc with a multi-line interpolation", "a = f(<<EOT\nx ${[\n1]} y\nEOT\n)\nb = 2\n"},
	{"template interpolation", "a = \"x${ b }y${c.d}z\"\nb = \"${ f( 1,2 ) }\"\n"},
	{"template directives", "a = \"%{ if x }y%{ else }z%{ endif }\"\nb = \"%{for v in l}${v}%{endfor}\"\n"},
	{"interpolations side by side", "a = \"${a}${b}%{if c}d%{endif}${e}\"\n"},
	{"interpolated object", "a = \"${ {a=1} }\"\nb = \"${{b=2}}\"\n"},
	{"escaped template", "a = \"$${x} %%{y}\"\n"},
	{"object constructor", "a = {\nb=1\ncc = 2\n\"d e\" = 3\n}\nf = {x=1, y=2}\ng = {}\n"},
	{"object with colons", "a = {\nb: 1\ncc: 2\n}\n"},
	{"tuple constructor", "a = [1,2 ,3]\nb = [\n1,\n2,\n]\nc = []\nd = [ ]\n"},
	{"nested constructors", "a = {\nb = [\n{\nc = 1\n},\n]\n}\n"},
	{"multi-line expression", "a = foo(\n1,\n2\n)\nb = (\n1 +\n2\n)\nlonger_name = 3\n"},
	{"assignment opening a bracket", "a = [\n1]\nb = [1,\n2]\ncc = 3\n"},
	{"closers of several levels", "a = [[\n1\n]]\nb {\nc {\n}}\nd = 1\n"},
	{"partial closes", "a = [[\n1\n],\n[\n2\n]]\nb = 1\n"},
	{"more closers than openers", "}\n]\n)\na = 1\n}}\n"},
	{"closers on a line opening more", "a = [\n1\n], [\n2\n]\n"},
	{"function calls", "a = f(x, y...)\nb = f (1)\nc = ns::fn(1)\nd = provider::p::f( 2 )\n"},
	{"attribute access", "a = b . c . d\nb = x.0.y\nc = x[0].y[\"z\"]\n"},
	{"index and splat", "a = b[0][1]\nc = f(x)[0]\nd = [1][0]\ne = 1[0]\nf = x[*].y\ng = x.*.y\n"},
	{"for expressions", "a = [for x in [foo]: x]\nb = {for k, v in m: k => v...}\nc = [for x in y: x if x > 0]\nd = [for x in (y): x]\n"},
	{"conditionals", "a = b?c:d\ne = b ? -1 : -2\nf = !b\ng = ! b\n"},
	{"minus as negation", "a = -1\nb = (-1)\nc = [-1, - 2]\nd = {x = -1}\ne = f(1, -1)\nf = x ? -1 : 2\ng = {k: -1}\n"},
	{"minus after operators", "a = 1 + -1\nb = 1 * -1\nc = 1 / -1\nd = 1 % -1\ne = 1 - -1\nf = 1 - - 1\n"},
	{"minus after comparisons", "a = 1 == -1\nb = 1 != -1\nc = 1 > -1\nd = 1 >= -1\ne = 1 < -1\nf = 1 <= -1\n"},
	{"minus after logic", "a = x && -1\nb = x || -1\nc = ! -1\nd = !-1\n"},
	{"minus as subtraction", "a = b-1\nc = b -1\nd = (b)-1\ne = b[0]-1\nf = \"x\"-1\ng = 2-1\n"},
	{"minus at start of input", "-1\n"},
	{"operators", "a = b+c*d/e%f\ng = b==c\nh = b!=c&&d||e\ni = b<c\nj = b>=c\n"},
	{"unicode in lead", "\"é\" = 1\n\"日本語\" = 2\n\"👍🏽\" = 3\nx = 4\n"},
	{"combining marks in lead", "\"e\u0301\u0301\" = 1\nab = 2\n"},
	{"crlf", "a = 1\r\nlonger = 2\r\nb {\r\nc = 3 # x\r\n}\r\n"},
	{"crlf heredoc", "a = <<EOT\r\nx\r\nEOT\r\nbb = 1\r\n"},
	{"lone cr", "a = 1\rb = 2\r"},
	{"tabs", "a\t=\t1\n\tb = 2\nc {\n\td = 3\n}\n"},
	{"tabs in comments", "a = 1\t# x\n#\tlead\n"},
	{"trailing spaces", "a = 1   \nb {   \n}   \n"},
	{"unterminated string", "a = \"abc\nb = 2\n"},
	{"unterminated string at end", "a = \"abc"},
	{"unterminated brace", "a {\nb = 1\n"},
	{"unterminated bracket", "a = [1, 2\nb = 3\n"},
	{"unterminated interpolation", "a = \"${b\nc = 1\n"},
	{"unterminated heredoc", "a = <<EOT\nfoo\n"},
	{"unterminated block comment", "a = 1 /* foo\nb = 2\n"},
	{"stray closers", "a = 1 }\n] b\n"},
	{"stray comment end", "a = 1 */\n"},
	{"only an equals sign", "=\n= 1\n"},
	{"equals in lead", "a = b = c\n"},
	{"invalid bytes", "a = \xff\xfe\nb\x00 = 1\n\"\xc3\" = 2\n"},
	{"invalid characters", "a = 1 @ 2\nb = `c`\n"},
	{"nested quotes in templates", "a = \"${\"b\"}\"\n"},
	{"ellipsis", "a = f(x...)\nb = [for x in y: x...]\n"},
}

func TestFormatCases(t *testing.T) {
	for _, c := range formatCases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			if got, want := Format(src), hclwrite.Format(src); !bytes.Equal(got, want) {
				t.Errorf("Format(%q)\n= %q\nhclwrite.Format gives\n  %q", c.src, got, want)
			}
		})
	}
}

// TestFormatLongTokens has Format count columns across tokens of many
// kilobytes (the scanner that counts grapheme clusters reads 4 KiB at a
// time and stops at 64 KiB), in lines whose alignment depends on it.
func TestFormatLongTokens(t *testing.T) {
	combining := strings.Repeat("e\u0301", 3000)    // 9,000 bytes of two-rune clusters
	longLine := strings.Repeat("x", 5000)           // one line past the first 4 KiB
	manyLines := strings.Repeat("ab\u0301\n", 3000) // line breaks inside the token
	cases := []struct{ name, src string }{
		{"long quoted key", "\"" + combining + "\" = 1\nb = 2\n"},
		{"long block comment in lead", "a /* " + combining + " */ = 1\nb = 2\n"},
		{"long multi-line block comment in lead", "a /* " + manyLines + " */ = 1\nb = 2\n"},
		{"long multi-line block comment then short", "a /* " + manyLines + combining + " */ = 1\nbb = 2 # c\n"},
		{"long heredoc with trailing comment", "a = <<EOT\n" + manyLines + longLine + "\nEOT # c\nb = 1 # d\n"},
		{"cluster past 64 KiB", "a /* x\n" + strings.Repeat("\u0301", 40000) + "\ny */ = 1\nbb = 2\n"},
		{"lone line break before 64 KiB", "a /* \n" + strings.Repeat("y", 70000) + " */ = 1\nbb = 2\n"},
		{"invalid byte before 64 KiB", "a /* \xff" + strings.Repeat("y", 70000) + " */ = 1\nbb = 2\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			if got, want := Format(src), hclwrite.Format(src); !bytes.Equal(got, want) {
				t.Errorf("Format differs from hclwrite.Format (%d bytes in)", len(src))
			}
		})
	}
}

// TestColumns compares the grapheme counter, copied from hcl's internal
// package, with hclwrite's Columns, which calls the original.
func TestColumns(t *testing.T) {
	for _, s := range []string{
		"", "a", "abc", "é", "e\u0301", "日本語", "👍🏽", "👨‍👩‍👧", "🇫🇷🇩🇪", "\r\n", "\n", "\r", "a\r\nb",
		"\xff", "\xc3", "a\xffb", "\u200b", "\x00", "ᄀᄀ가", "\u0600a",
		strings.Repeat("e\u0301", 3000), strings.Repeat("a\n", 3000), strings.Repeat("\u0301", 40000),
		strings.Repeat("ab\u0301\n", 3000) + strings.Repeat("e\u0301", 3000), "\n" + strings.Repeat("y", 70000),
	} {
		want := hclwrite.Tokens{{Bytes: []byte(s), SpacesBefore: 2}}.Columns()
		if got := (wtokens{{Bytes: []byte(s), SpacesBefore: 2}}).columns(); got != want {
			t.Errorf("columns(%.40q) = %d, hclwrite's Columns = %d", s, got, want)
		}
	}
}

// FuzzFormat checks Format against hclwrite.Format byte for byte, from the
// repository's .hcl files and the cases above.
func FuzzFormat(f *testing.F) {
	for _, src := range repoHCLFiles(f) {
		f.Add(src)
	}
	for _, c := range formatCases {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := Format(src), hclwrite.Format(src); !bytes.Equal(got, want) {
			t.Errorf("Format(%q)\n= %q\nhclwrite.Format gives\n  %q", src, got, want)
		}
	})
}
