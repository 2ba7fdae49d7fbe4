package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

const deadParts = `
policy "dead" {}
param "used" {
  type    = number
  default = 1
}
param "unused" {
  type    = number
  default = 2
}
slot "phase" {
  values = ["a", "b"]
}
slot "written_only" {
  type = int
}
derived "left" {
  value = "event.context_window - event.tokens"
}
derived "never" {
  value = "left * 2"
}
message "sent" {
  text = "x"
}
message "orphan" {
  text = "y"
}
message "boot" {
  text = "the host reads this one"
}
group "g" {
  rule "r" {
    on   = "request"
    from = { phase = "a" }
    when = "left < param.used"
    to   = { phase = "b" }
    set  = { written_only = "1" }
    effect "inject" {
      message = "sent"
      deliver = "request"
    }
  }
}
`

func TestDeadPartsAreWarned(t *testing.T) {
	p, diags := rules.Load(rules.Source{Name: "dead.hcl", Bytes: []byte(deadParts)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var got []string
	for _, d := range rules.DeadParts(p) {
		if d.Severity != hcl.DiagWarning {
			t.Errorf("%s is not a warning", d.Summary)
		}
		got = append(got, d.Summary+" "+strings.Fields(d.Detail)[len(strings.Fields(d.Summary))-1])
	}
	want := []string{`Unused param "unused"`, `Unused slot "written_only"`, `Unused derived value "never"`, `Unused message "orphan"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, n := range policies.Names() {
		b, _ := policies.Load(n, nil)
		for _, d := range rules.DeadParts(b) {
			t.Errorf("built-in %s: %s: %s", n, d.Summary, d.Detail)
		}
	}
}

// In a file that uses a built-in, only the file's own dead parts are
// warned about: the built-in's tool_off, no longer sent once the file
// replaces the one rule that sends it, is not the author's to drop.
func TestDeadPartsOfAComposedFileAreTheFilesOwn(t *testing.T) {
	p, diags := loadCompose(t, "team.hcl", `use "wipe_memory" {}

message "orphan" {
  text = "sent by nothing"
}

override "tool_refused_while_disabled" {
  on   = "tool"
  when = "event.name == 'wipe_memory' && !event.enabled"
  effect "reply" {
    text = "'switched off: /resetpolicy on'"
  }
}
`)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var got []string
	for _, d := range rules.DeadParts(p) {
		got = append(got, fmt.Sprintf("%s:%d %s", d.Subject.Filename, d.Subject.Start.Line, d.Detail))
	}
	want := []string{`team.hcl:3 message "orphan" is named by no effect and read by no expression; drop it, or send it`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
