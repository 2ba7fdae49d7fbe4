package verify_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// A manual close-out: /stop asks for it, the next turn_end commits and
// stops. The bookkeeping is a slot the fixed policy clears at commit; the
// broken one forgets to, so the next turn_end wipes again. The property is
// stated over what the policy does (a stopped commit, a new user prompt),
// so the broken policy cannot make it hold by what it forgets.
const closeOut = `
policy "close_out" {}
slot "asked" {
  type = bool
}
group "g" {
  rule "ask" {
    on  = "command"
    set = { asked = "true" }
  }
  rule "commit" {
    on   = "turn_end"
    when = "state.asked"
    set  = { asked = "%s" }
    effect "commit_reset" {
      continue = false
      stop     = true
    }
  }
}
property "after a stopped commit, no reset until the user asks again" {
  never = "commit_reset"
  after = { effect = "commit_reset", with = { stop = true } }
  until = [{ event = "request", when = "event.user_input" }, { event = "command" }]
}
verify {
  domain = { "request.user_input" = [true, false] }
}
`

func loadClose(t *testing.T, clearAt string) *rules.Policy {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: "close_out.hcl", Bytes: []byte(strings.Replace(closeOut, "%s", clearAt, 1))})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func TestScopedPropertyCatchesWhatTheSlotsHide(t *testing.T) {
	fixed := loadClose(t, "false")
	if r := verify.Check(fixed, verify.Options{}); len(r.Findings) != 0 || len(r.Holds) != 1 {
		t.Fatalf("the fixed policy: %+v", r.Findings)
	}
	broken := loadClose(t, "true")
	r := verify.Check(broken, verify.Options{})
	if len(r.Findings) != 1 {
		t.Fatalf("the broken policy: %d findings", len(r.Findings))
	}
	f := &r.Findings[0]
	want := `turn_end yields commit_reset after commit_reset { stop = true } until request (when event.user_input) or command`
	if f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	// The trace: command, turn_end (the stopped commit), turn_end again,
	// with no user prompt between.
	var evs []string
	for _, s := range f.Trace {
		evs = append(evs, s.Event["event"].(string))
	}
	if strings.Join(evs, ",") != "command,turn_end,turn_end" {
		t.Errorf("trace %v", evs)
	}
	replays(t, broken, f)
	runFails(t, broken, f)
	runPasses(t, fixed, f)
}

// The scope closes at its until: a prompt between the two commits makes
// the second one allowed.
func TestScopeClosesAtUntil(t *testing.T) {
	src := strings.Replace(closeOut, "%s", "true", 1)
	src = strings.Replace(src, `rule "ask" {
    on  = "command"`, `rule "ask" {
    on  = "request"
    when = "event.user_input"`, 1)
	p, diags := rules.Load(rules.Source{Name: "close_out.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	// A user prompt asks for the close-out and closes the scope; the
	// broken policy keeps asked, so a second turn_end commits with no
	// prompt between: outside no scope.
	r := verify.Check(p, verify.Options{})
	if len(r.Findings) != 1 {
		t.Fatalf("%d findings", len(r.Findings))
	}
	// Within a window: the same ban ends with the window the commit opened.
	src = strings.Replace(src, `  until = [{ event = "request", when = "event.user_input" }, { event = "command" }]`, `  within = "window"`, 1)
	p, diags = rules.Load(rules.Source{Name: "close_out.hcl", Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if r := verify.Check(p, verify.Options{}); len(r.Findings) != 0 {
		t.Errorf("a commit opens a new window, so within a window the next commit is outside: %s", r.Findings[0].Message)
	}
}

const underSet = `
policy "under_set" {}
param "limit" {
  type    = number
  default = 100
}
group "g" {
  rule "commit" {
    on   = "turn_end"
    when = "event.tokens >= param.limit"
    effect "commit_reset" {
      continue = true
    }
  }
}
property "no reset below 50 tokens" {
  never = "commit_reset"
  when  = "event.tokens < 50"
}
`

// A counterexample found under a param set on the command line sets that
// param in its run block: pasted as printed, it fails against the policy
// at that value and passes at the policy's own.
func TestRunBlockSetsTheParamsItWasFoundUnder(t *testing.T) {
	load := func(set map[string]string) *rules.Policy {
		p, diags := rules.Load(rules.Source{Name: "under_set.hcl", Bytes: []byte(underSet)}, rules.WithSet(set, "flag --set"))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return p
	}
	if r := verify.Check(load(nil), verify.Options{}); len(r.Findings) != 0 {
		t.Fatalf("at its default the policy holds: %s", r.Findings[0].Message)
	}
	r := verify.Check(load(map[string]string{"limit": "10"}), verify.Options{})
	if len(r.Findings) != 1 {
		t.Fatalf("%d findings", len(r.Findings))
	}
	f := &r.Findings[0]
	block := f.RunBlock("under_set")
	if !strings.Contains(block, "  params = { limit = 10 }\n") {
		t.Fatalf("the run block does not set the param:\n%s", block)
	}
	// The test runner applies the run's params to the policy as written.
	src := "policy = \"under_set\"\n" + block
	tf, diags := testfile.Parse([]byte(src), "verify.test.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runner := testrun.New(func(_ *testfile.File, ov []rules.Override) (*rules.Policy, rules.Diagnostics) {
		p, d := rules.Load(rules.Source{Name: "under_set.hcl", Bytes: []byte(underSet)}, rules.WithOverrides(ov...))
		return p, d
	})
	runner.RunFile(tf)
	if rep := runner.Report(); rep.Failed() != 1 {
		t.Errorf("the pasted run passes against the policy it was found in:\n%s", src)
	}
}
