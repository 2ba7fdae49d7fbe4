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

// The simulated host answers a compact with callbacks echoing the attempt
// it carried, as the contract says: a policy that waits for attempt 7 but
// asks the host for attempt 8 never hears of its own attempt, and a
// property naming the attempt by the effect (scope.attempt) catches it.
// Sampled from the state's ids instead, the callbacks carry 1 and the
// property holds vacuously.
const echoPolicy = `
policy "echo" {}
group "g" {
  rule "start" {
    on = "settled"
    effect "compact" {
      attempt = "%s"
    }
  }
  rule "warn" {
    on   = "attempt_error"
    when = "event.attempt == 7"
    effect "notify" {
      level = "warning"
      text  = "'failed'"
    }
  }
}
property "the error of the attempt compact carried warns" {
  always_emits = "notify"
  with         = { level = "warning" }
  on           = "attempt_error"
  when         = "event.attempt == scope.attempt"
  after        = { effect = "compact" }
  until        = { event = "attempt_error", when = "event.attempt == scope.attempt", inclusive = true }
}
`

func TestHostEchoesTheAttemptCompactCarried(t *testing.T) {
	load := func(attempt string) *rules.Policy {
		p, diags := rules.Load(rules.Source{Name: "echo.hcl", Bytes: []byte(strings.Replace(echoPolicy, "%s", attempt, 1))})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return p
	}
	r := verify.Check(load("7"), verify.Options{})
	if !r.OK() || len(r.Holds) != 1 {
		t.Fatalf("the policy that asks for the attempt it waits for: %+v", r.Findings)
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "attempt_error.attempt the attempt the last compact effect carried, as the host echoes it") {
		t.Errorf("the report does not say the attempt is echoed:\n%s", b.String())
	}
	bad := load("8")
	r = verify.Check(bad, verify.Options{})
	if len(r.Findings) != 1 || r.Findings[0].Name != "the error of the attempt compact carried warns" {
		t.Fatalf("a compact carrying another attempt than the policy waits for: findings %+v", r.Findings)
	}
	f := &r.Findings[0]
	if got := f.Trace[len(f.Trace)-1].Event["attempt"]; got != 8.0 {
		t.Errorf("the failing callback carries attempt %v, want 8 (the one compact carried)", got)
	}
	replays(t, bad, f)
	runFails(t, bad, f)
	// Against the fixed policy the run passes: its compact carried 7, so
	// the callback echoing 8 is none of its attempts.
	runPasses(t, load("7"), f)
}

// An until marked inclusive keeps its event's own decision inside the
// scope: the attempt's error must warn, and a repeated error of it (the
// scope now closed) need not.
func TestInclusiveUntilClosesAfterItsDecision(t *testing.T) {
	src := strings.Replace(echoPolicy, "%s", "7", 1)
	exclusive := strings.Replace(src, "inclusive = true", "inclusive = false", 1)
	// Closed before its decision, the scope never sees the error it
	// obliges: the property holds even for a policy that never warns.
	silent := strings.Replace(exclusive, `level = "warning"`, `level = "info"`, 1)
	q, diags := rules.Load(rules.Source{Name: "echo.hcl", Bytes: []byte(silent)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if r := verify.Check(q, verify.Options{}); !r.OK() {
		t.Fatalf("an exclusive until closes the scope before the error: %+v", r.Findings)
	}
	silentIncl := strings.Replace(src, `level = "warning"`, `level = "info"`, 1)
	q, diags = rules.Load(rules.Source{Name: "echo.hcl", Bytes: []byte(silentIncl)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if r := verify.Check(q, verify.Options{}); r.OK() {
		t.Fatal("an inclusive until keeps the error inside the scope: a policy that never warns must fail")
	}
}

// A fact only a scope marker reads still takes its values: here no rule
// reads tool_results, and the scope opens only at a turn with tool
// results, whose own reset breaks the ban.
func TestMarkerFactsAreVaried(t *testing.T) {
	p, diags := rules.Load(rules.Source{Name: "marker.hcl", Bytes: []byte(`policy "marker" {}
group "g" {
  rule "reset" {
    on = "turn_end"
    effect "commit_reset" {
      continue = true
    }
  }
}
property "no reset after a turn with tool results" {
  never = "commit_reset"
  after = { event = "turn_end", when = "event.tool_results > 0" }
}
`)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := verify.Check(p, verify.Options{})
	if len(r.Findings) != 1 || r.Findings[0].Name != "no reset after a turn with tool results" {
		t.Fatalf("findings %+v; want the ban broken at a turn with tool results", r.Findings)
	}
	if got := r.Findings[0].Trace[0].Event["tool_results"]; got == nil {
		t.Errorf("the counterexample's turn has no tool results: %v", r.Findings[0].Trace[0].Event)
	}
}
