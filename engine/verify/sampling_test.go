package verify_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
)

// A string fact compared only with its default is tried with a value none
// of its literals is too: the rule for an attempt error with a message is
// not reported dead, and a property broken only by such an error fails,
// with a counterexample that replays.
func TestStringFactComparedWithItsDefault(t *testing.T) {
	p := mustLoad(t, `policy "errors" {}
group "attempt" {
  rule "error_without_message" {
    on   = "attempt_error"
    when = "event.error == ''"
    effect "notify" {
      level = "warning"
      text  = "'the compaction failed'"
    }
  }
  rule "error_with_message" {
    on   = "attempt_error"
    when = "event.error != ''"
    effect "notify" {
      level = "warning"
      text  = "'the compaction failed: ' + event.error"
    }
  }
}
property "an attempt error never carries its message" {
  never = "notify"
  on    = "attempt_error"
  when  = "event.error != ''"
}
`)
	r := verify.Check(p, verify.Options{})
	var names []string
	for _, f := range r.Findings {
		names = append(names, f.Name)
		if strings.HasPrefix(f.Name, "dead rule") {
			t.Errorf("%s: %s", f.Name, f.Message)
		}
	}
	f := findingOf(r, "an attempt error never carries its message")
	if f == nil {
		t.Fatalf("an error with a message is never tried; findings: %v", names)
	}
	replays(t, p, f)
	runFails(t, p, f)
}
