package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/rules"
)

// kindPolicy is a policy with a message of messageKind and a rule of
// ruleKind (each line left out when empty), the rule injecting the message
// and, when reset is set, committing a reset.
func kindPolicy(messageKind, ruleKind string, effect string) string {
	args := `message = "nudge"
      deliver = "request"`
	if effect == "notify" {
		args = `level = "info"
      text  = "message.nudge"`
	}
	line := func(k string) string {
		if k == "" {
			return ""
		}
		return "kind = " + k + "\n"
	}
	return fmt.Sprintf(`policy "kinds" {}
message "nudge" {
  %stext = "x"
}
group "g" {
  rule "close_out" {
    %son = "request"
    effect %q {
      %s
    }
  }
}
message "boot" {
  text = "b"
}
`, line(messageKind), line(ruleKind), effect, args)
}

func TestDecisionKindsAreDeclared(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		messageKind, rulKind string
		effect               string
		wantMessage, wantRul rules.DecisionKind
		wantWarning          bool
		wantError            string
	}{
		{name: "a bare word on a message", messageKind: "reminder", effect: "inject", wantMessage: rules.KindReminder},
		{name: "a quoted word on a rule", rulKind: `"hard_reserve"`, effect: "inject", wantRul: rules.KindHardReserve},
		{name: "both", messageKind: "warning", rulKind: "reset", effect: "inject", wantMessage: rules.KindWarning, wantRul: rules.KindReset},
		{name: "an injecting policy that declares none is warned", effect: "inject", wantWarning: true},
		{name: "a policy that only notifies needs none", effect: "notify"},
		{name: "an unknown kind is an error with a suggestion", messageKind: "chekpoint", effect: "inject", wantError: `did you mean "checkpoint"?`},
		{name: "an expression is not a kind", rulKind: `"re${"set"}"`, effect: "inject", wantError: "Not a decision kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := kindPolicy(tc.messageKind, tc.rulKind, tc.effect)
			p, diags := rules.Load(rules.Source{Name: "kinds.hcl", Bytes: []byte(src)})
			if tc.wantError != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantError) {
					t.Fatalf("diagnostics %v, want an error containing %q", diags.Error(), tc.wantError)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if got := p.Messages[0].Kind; got != tc.wantMessage {
				t.Errorf("message kind %q, want %q", got, tc.wantMessage)
			}
			if got := p.Rules[0].Kind; got != tc.wantRul {
				t.Errorf("rule kind %q, want %q", got, tc.wantRul)
			}
			warn := rules.UndeclaredKinds(p)
			if (len(warn) > 0) != tc.wantWarning {
				t.Fatalf("warnings %v, want a warning: %v", warn, tc.wantWarning)
			}
			if tc.wantWarning {
				d := warn[0]
				if d.Severity != hcl.DiagWarning || d.Summary != "No decision kinds declared" || d.Subject.Start.Line != 8 {
					t.Errorf("warning %s at %v, want a warning at the inject effect (line 8)", d.Summary, d.Subject)
				}
			}
		})
	}
}

// A decision's kinds are the declared kinds of the rules that fired and
// of the messages they injected; names say nothing.
func TestKindIndex(t *testing.T) {
	p, diags := rules.Load(rules.Source{Name: "kinds.hcl", Bytes: []byte(kindPolicy("warning", "hard_reserve", "inject"))})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	x := rules.NewKindIndex(p)
	if x.Empty() {
		t.Fatal("an index of a policy that declares kinds is empty")
	}
	if s := x.Rule("close_out"); !s.Has(rules.KindHardReserve) || s.Has(rules.KindWarning) {
		t.Errorf("rule close_out: %v", s.Kinds())
	}
	if s := x.Message("nudge"); !s.Has(rules.KindWarning) || len(s.Kinds()) != 1 {
		t.Errorf("message nudge: %v", s.Kinds())
	}
	if s := x.Message("boot") | x.Rule("warning"); s != 0 {
		t.Errorf("undeclared names have kinds %v", s.Kinds())
	}
	both := x.Rule("close_out") | x.Message("nudge")
	if got := fmt.Sprint(both.Kinds()); got != "[warning hard_reserve]" {
		t.Errorf("kinds in order %s, want [warning hard_reserve]", got)
	}
	q, _ := rules.Load(rules.Source{Name: "none.hcl", Bytes: []byte(kindPolicy("", "", "inject"))})
	if !rules.NewKindIndex(q).Empty() || q.DeclaresKinds() {
		t.Error("a policy that declares no kind has an index that is not empty")
	}
}
