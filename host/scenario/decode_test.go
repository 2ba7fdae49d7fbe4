package scenario

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestDefaultScenarioDecodes(t *testing.T) {
	sc, diags := Default()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if sc.Policy != "wipe_memory" || sc.Title == "" || len(sc.Steps) < 5 {
		t.Errorf("default scenario: policy %q, title %q, %d steps", sc.Policy, sc.Title, len(sc.Steps))
	}
	var calls []string
	for _, st := range sc.Steps {
		if a, ok := st.(*Assistant); ok {
			for _, c := range a.Calls {
				calls = append(calls, c.Name)
			}
		}
	}
	if !strings.Contains(strings.Join(calls, ","), "wipe_memory") {
		t.Errorf("the default scenario calls wipe_memory: %v", calls)
	}
}

func TestDecodeSteps(t *testing.T) {
	src := `
scenario "Story" {
  description     = "d"
  policy          = "autocompacter"
  context_window  = 128000
  reserve         = 8000
  auto_compaction = false
  auto_reset      = false
  enabled         = true
  model           = "m1"
  set             = { warning_runway = 8192, "retry_delays_ms" = [1000, 2000] }
}
user "hello" {}
user {
  text = <<-EOT
    multi
    line
  EOT
}
assistant {
  text   = "hi"
  tokens = 1200
  call "read" {
    args   = { path = "a.go", lines = [1, 2] }
    result = "x"
  }
  call "self-compact" {}
}
assistant { error = "overflow" }
assistant { abort = "synthetic" }
steer "s" {}
follow_up { text = "f" }
command "/autocompacter set force 200000" {}
command "wipe-memory" { args = "now" }
compact { instructions = "focus" }
toggle "off" {}
settings {
  auto_compaction = true
  reserve         = 20000
}
model "m2" { context_window = 64000 }
wait "1m30s" {}
summary {
  ok    = false
  error = "boom"
}
summary { text = "custom" }
compaction { reject = "no" }
compaction { signal_aborted = true }
reopen {}
mark "here" {}
tree "here" { summarize = true }
`
	sc, diags := Parse([]byte(src), "story.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if sc.Title != "Story" || sc.Policy != "autocompacter" || sc.Host.ContextWindow != 128000 || sc.Host.Reserve != 8000 ||
		sc.Host.AutoCompaction || sc.Host.AutoReset || sc.Host.Model != "m1" {
		t.Errorf("header: %+v", sc)
	}
	if len(sc.Set) != 2 || sc.Set[0].Name != "retry_delays_ms" || sc.Set[1].Name != "warning_runway" || sc.Set[1].Range.Start.Line != 11 {
		t.Errorf("set: %+v", sc.Set)
	}
	var kinds []string
	for _, st := range sc.Steps {
		kinds = append(kinds, st.Kind())
	}
	want := "user user assistant assistant assistant steer follow_up command command compact toggle settings model wait summary summary compaction compaction reopen mark tree"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("steps:\n got %s\nwant %s", got, want)
	}
	if u := sc.Steps[1].(*User); u.Text != "multi\nline\n" {
		t.Errorf("heredoc text %q", u.Text)
	}
	a := sc.Steps[2].(*Assistant)
	if a.Tokens != 1200 || len(a.Calls) != 2 || string(a.Calls[0].Args) != `{"lines":[1,2],"path":"a.go"}` || a.Calls[0].ArgsMap["path"] != "a.go" || a.Calls[0].Result != "x" {
		t.Errorf("assistant: %+v", a)
	}
	if c := sc.Steps[7].(*Command); c.Name != "autocompacter" || c.Args != "set force 200000" {
		t.Errorf("command: %+v", c)
	}
	if c := sc.Steps[8].(*Command); c.Name != "wipe-memory" || c.Args != "now" {
		t.Errorf("command: %+v", c)
	}
	if w := sc.Steps[13].(*Wait); w.Millis != 90000 {
		t.Errorf("wait %d", w.Millis)
	}
	if s := sc.Steps[11].(*Settings); s.AutoCompaction == nil || !*s.AutoCompaction || s.AutoReset != nil || *s.Reserve != 20000 {
		t.Errorf("settings %+v", s)
	}
	if sum := sc.Steps[14].(*Summary); sum.OK || sum.Error != "boom" {
		t.Errorf("summary %+v", sum)
	}
	if r := sc.Steps[0].Range(); r.Filename != "story.hcl" || r.Start.Line != 13 {
		t.Errorf("range %v", r)
	}
}

// Every problem is a diagnostic at the file, line and column of the
// offending text.
func TestDecodeDiagnostics(t *testing.T) {
	cases := []struct {
		name, src, want string
		line, col       int
	}{
		{"unknown step", "usr \"hi\" {}\n", `"usr" is not a step`, 1, 1},
		{"suggestion", "asistant {}\n", `did you mean "assistant"?`, 1, 1},
		{"top-level attribute", "policy = \"x\"\n", "belongs inside the scenario header", 1, 1},
		{"header not first", "user \"a\" {}\nscenario \"x\" {}\n", "must be the first block", 2, 1},
		{"missing text", "user {}\n", "needs the prompt", 1, 1},
		{"text twice", "user \"a\" {\n  text = \"b\"\n}\n", "not both", 2, 3},
		{"bad abort", "assistant {\n  abort = \"yes\"\n}\n", `not "yes"`, 2, 11},
		{"abort and error", "assistant {\n  abort = \"user\"\n  error = \"x\"\n}\n", "either aborted or an error", 2, 3},
		{"calls in failed answer", "assistant {\n  error = \"overflow\"\n  call \"read\" {}\n}\n", "runs no tool calls", 1, 1},
		{"unknown attribute", "assistant {\n  tokenz = 5\n}\n", "tokenz", 2, 3},
		{"wrong type", "assistant {\n  tokens = \"many\"\n}\n", "tokens is a whole number", 2, 12},
		{"fraction", "assistant {\n  tokens = 1.5\n}\n", "whole number", 2, 12},
		{"args not object", "assistant {\n  call \"read\" {\n    args = 3\n  }\n}\n", "args is an object", 3, 12},
		{"bad duration", "wait \"soon\" {}\n", "positive duration", 1, 6},
		{"bad toggle", "toggle \"maybe\" {}\n", `not "maybe"`, 1, 8},
		{"label missing", "command {}\n", "needs a label", 1, 1},
		{"extra label", "reopen \"x\" {}\n", "takes no label", 1, 8},
		{"summary error on ok", "summary {\n  error = \"x\"\n}\n", "ok = false", 2, 3},
		{"compaction outcomes", "compaction {}\n", "one outcome", 1, 1},
		{"empty settings", "settings {}\n", "changes auto_compaction", 1, 1},
		{"syntax", "user \"a\" {\n", "", 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Parse([]byte(c.src), "bad.scenario.hcl")
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags[0]
			if c.want != "" && !strings.Contains(d.Summary+": "+d.Detail, c.want) {
				t.Errorf("diagnostic %q, want it to mention %q", d.Summary+": "+d.Detail, c.want)
			}
			if d.Subject == nil || d.Subject.Filename != "bad.scenario.hcl" || d.Subject.Start.Line != c.line || (c.col > 0 && d.Subject.Start.Column != c.col) {
				t.Errorf("at %v, want bad.scenario.hcl:%d:%d", subject(d), c.line, c.col)
			}
		})
	}
}

func subject(d *hcl.Diagnostic) any {
	if d.Subject == nil {
		return nil
	}
	return *d.Subject
}
