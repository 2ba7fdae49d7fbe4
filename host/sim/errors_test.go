package sim_test

import (
	"encoding/json"
	"errors"
	"github.com/resetpolicy/resetpolicy/host/session"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

// A scenario the host cannot follow stops with an error at the step, and
// the timeline up to it.
func TestScenarioErrorsPointAtTheStep(t *testing.T) {
	cases := []struct {
		name, src, want string
		line            int
	}{
		{"answer while idle", "assistant {\n  text = \"hi\"\n}\n", "no model request is waiting", 1},
		{"scenario ends while streaming", "user \"go\" {}\n", "the scenario ends while the model is asked for an answer", 1},
		{"prompt while streaming", "user \"a\" {}\nuser \"b\" {}\n", "queued, as a steer or follow_up step", 2},
		{"steer while idle", "steer \"a\" {}\n", "a message typed while idle is a user step", 1},
		{"unknown command", "command \"/nope\" {}\n", "has no command /nope (its commands: /wipe-memory)", 1},
		{"unknown mark", "tree \"x\" {}\n", `no mark of that name`, 1},
		{"compact while streaming", "user \"a\" {}\ncompact {}\n", "needs the agent to be idle", 2},
	}
	p, diags := sim.LoadPolicy("wipe_memory", nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, d := scenario.Parse([]byte(c.src), "bad.scenario.hcl")
			if d.HasErrors() {
				t.Fatal(d)
			}
			r, err := sim.Run(p, sc, sim.Options{})
			var se *sim.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *sim.Error", err)
			}
			if !strings.Contains(se.Msg, c.want) || se.Range.Filename != "bad.scenario.hcl" || se.Range.Start.Line != c.line {
				t.Errorf("%s at %s:%d, want %q at line %d", se.Msg, se.Range.Filename, se.Range.Start.Line, c.want, c.line)
			}
			if r == nil || len(r.Lines) == 0 || r.Lines[0].Event != "session_start" {
				t.Error("the timeline up to the error is returned")
			}
			if diag := se.Diagnostic(); diag.Subject == nil || diag.Subject.Start.Line != c.line {
				t.Errorf("diagnostic %v", diag)
			}
		})
	}
}

// A param override in the scenario header that the policy rejects is
// reported at the override in the scenario file.
func TestScenarioOverrideDiagnosticPointsIntoTheScenario(t *testing.T) {
	sc := parse(t, "scenario \"x\" {\n  policy = \"wipe_memory\"\n  set    = { warning_runway = -1, nope = 2 }\n}\n")
	_, diags := sim.LoadPolicy(sim.PolicyName("", sc), sc, nil)
	if !diags.HasErrors() {
		t.Fatal("no error")
	}
	out := diags.Error()
	for _, want := range []string{"inline.scenario.hcl:3:", "warning_runway", `no param "nope"`} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, out)
		}
	}
	// --set wins over the scenario.
	p, diags := sim.LoadPolicy("wipe_memory", parse(t, "scenario \"x\" {\n  set = { warning_runway = 100 }\n}\n"), map[string]string{"warning_runway": "200"})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if prm, _ := p.Param("warning_runway"); prm.Value.AsBigFloat().String() != "200" {
		t.Errorf("warning_runway = %v, want --set's 200", prm.Value)
	}
}

// seed 001, "Attempt onComplete: ... send continuation": an idle continue
// sends the policy's continuation message.
func TestIdleContinueUsesThePolicysContinuationText(t *testing.T) {
	r := run(t, "new_context_explicit")
	for _, e := range r.Session.Entries() {
		if sim.DescribeEntry(e) == "hidden(continuation)" {
			if !strings.Contains(string(e.Bytes()), "Continue the task in this fresh context window") {
				t.Errorf("new_context declares `continuation`; its text must be used: %s", e.Bytes())
			}
			return
		}
	}
	t.Error("no continuation message")
}

// A policy without `boot` and `continuation` messages gets the default
// boundary texts (the convention doc.go states).
func TestBoundaryMessagesDefaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bare.hcl")
	src := `
policy "bare" {
  description = "Resets when the agent calls reset."
}

tool "reset" {
  description = "Reset the window."
}

group "g" {
  rule "reset_on_tool" {
    on   = "tool"
    when = "event.name == 'reset'"
    effect "commit_reset" {
      continue = true
    }
  }
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := sim.LoadPolicy(file, nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	sc := parse(t, `
user "go" {}
assistant {
  call "reset" {}
}
assistant {
  text = "fresh"
}
`)
	r, err := sim.Run(p, sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkBoundary(t, r, "w2")
	for _, e := range r.Session.Path() {
		switch {
		case session.IsBoot(e) && !strings.Contains(string(e.Bytes()), jsonString(sim.DefaultBoot)):
			t.Errorf("boot text: %s", e.Bytes())
		case session.IsContinuation(e) && !strings.Contains(string(e.Bytes()), jsonString(sim.DefaultContinuation)):
			t.Errorf("continuation text: %s", e.Bytes())
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
