package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/sim"
)

// Every effect of the host contract is carried out: a probe policy emits
// those the built-ins do not all use, in places where they have no
// compaction or run to act on, and the host records what it did.
func TestEveryEffectIsCarriedOut(t *testing.T) {
	src := `
policy "probe" {
  description = "Emits effects on /probe."
}

command "probe" {
  description = "Emit effects."
}

message "hello" {
  text = "Hello from the policy."
}

group "g" {
  rule "probe" {
    on   = "command"
    when = "event.name == 'probe'"
    effect "status" {
      text = "'probing'"
    }
    effect "notify" {
      level = "info"
      text  = "'a notice'"
    }
    effect "save_param" {
      name  = "'limit'"
      value = "42"
    }
    effect "clear_param" {
      name = "'other'"
    }
    effect "provide_reset" {}
    effect "cancel_compaction" {
      text = "'nothing to cancel'"
    }
    effect "stop" {}
    effect "inject" {
      message = "hello"
      deliver = "request"
    }
  }
}
`
	file := filepath.Join(t.TempDir(), "probe.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := sim.LoadPolicy(file, nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r, err := sim.Run(p, parse(t, "command \"/probe\" {}\nassistant {\n  text = \"Hi.\"\n}\n"), sim.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, timeline(r))
	}
	if r.Status != "probing" {
		t.Errorf("status %q", r.Status)
	}
	if len(r.Notices) != 2 || r.Notices[0] != (sim.Notice{Level: "info", Text: "a notice"}) || r.Notices[1].Text != "nothing to cancel" {
		t.Errorf("notices %v", r.Notices)
	}
	if len(r.Params) != 2 || r.Params[0] != (sim.ParamChange{Name: "limit", Value: 42}) || r.Params[1] != (sim.ParamChange{Name: "other", Cleared: true}) {
		t.Errorf("params %v", r.Params)
	}
	cmd := on(r, "command")[0]
	notes := strings.Join(cmd.Notes, "; ")
	for _, want := range []string{"provide_reset outside before_compact", "cancel_compaction outside before_compact", "stop: nothing is running"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %s", want, notes)
		}
	}
	// inject outside a request while idle starts a turn with the message.
	if got := describe(on(r, "request")[0].Entries); strings.Join(got, ",") != "hidden(hello)" {
		t.Errorf("the injected message starts a run: %v", got)
	}
}
