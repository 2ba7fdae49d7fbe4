package rules_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

const propertyBase = `policy "p" {}
slot "request" {
  values = ["none", "pending"]
}
group "g" {
  rule "r" {
    on   = "tool"
    to   = { request = "pending" }
  }
}
`

func TestPropertyBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, src, err string
	}{
		{"never", `property "s" {
  never = "commit_reset"
  with  = { continue = true }
  on    = "turn_end"
  when  = "event.outcome == 'aborted' && state.request == 'none'"
}`, ""},
		{"obligation", `property "s" {
  always_emits = "cancel_compaction"
  on           = "before_compact"
  when         = "event.enabled && state.request == 'none'"
}`, ""},
		{"obligation without its events", `property "s" {
  always_emits = "cancel_compaction"
}`, "Missing on"},
		{"obligation with a count", `property "s" {
  always_emits = "stop"
  on           = "turn_end"
  per          = "window"
}`, "does not go with always_emits"},
		{"at most per cycle", `property "s" {
  at_most       = 1
  of            = "inject"
  per           = "cycle"
  cycle_ends_on = { summary_done = "event.ok", model_select = "true" }
}`, ""},
		{"always", `property "s" {
  always = "state.request != 'gone'"
}`, "not a value"},
		{"two sentences", `property "s" {
  always = "true"
  never  = "stop"
}`, "Ambiguous property"},
		{"unknown effect", `property "s" {
  never = "comit_reset"
}`, `"comit_reset" is not an effect`},
		{"unknown argument", `property "s" {
  never = "commit_reset"
  with  = { contine = true }
}`, `has no argument "contine"`},
		{"fact of another event", `property "s" {
  never = "stop"
  on    = "request"
  when  = "event.outcome == 'aborted'"
}`, "outcome"},
		{"cycle without its end", `property "s" {
  at_most = 1
  of      = "stop"
  per     = "cycle"
}`, "Missing cycle_ends_on"},
		{"wrong attribute for the sentence", `property "s" {
  no_loop_of = "continue"
  per        = "window"
}`, "does not go with no_loop_of"},
		{"unfired names no rule", `verify {
  unfired = ["nope"]
}`, `rule "nope"`},
		{"params for an unknown param", `verify {
  params = { nope = [1, 2] }
}`, `param "nope"`},
		{"too many param sets", `param "a" {
  type    = number
  default = 1
}
param "b" {
  type    = number
  default = 1
}
verify {
  params = { a = [1, 2, 3, 4, 5], b = [1, 2, 3, 4] }
}`, "Too many param sets"},
		{"scoped ban", `property "s" {
  never  = "commit_reset"
  after  = [{ effect = "commit_reset", with = { stop = true } }, { event = "command", when = "event.name == 'x'" }]
  until  = { event = "request", when = "event.user_input" }
  within = "run"
}`, ""},
		{"scoped obligation", `property "s" {
  always_emits = "cancel_compaction"
  on           = "before_compact"
  after        = { event = "tool" }
  within       = "window"
}`, ""},
		{"until without after", `property "s" {
  never = "stop"
  until = { event = "request" }
}`, "until ends a scope that after"},
		{"within of nothing", `property "s" {
  never  = "stop"
  after  = { event = "tool" }
  within = "day"
}`, `within is "window" or "run"`},
		{"marker of both kinds", `property "s" {
  never = "stop"
  after = { event = "tool", effect = "stop" }
}`, "Expected an event or an effect"},
		{"marker of neither", `property "s" {
  never = "stop"
  after = {}
}`, "Expected an event or an effect"},
		{"event with with", `property "s" {
  never = "stop"
  after = { event = "tool", with = { x = 1 } }
}`, "Unexpected with"},
		{"effect with when", `property "s" {
  never = "stop"
  after = { effect = "stop", when = "true" }
}`, "Unexpected when"},
		{"marker's unknown event", `property "s" {
  never = "stop"
  after = { event = "tool_call" }
}`, `"tool_call" is not an event`},
		{"marker's unknown effect argument", `property "s" {
  never = "stop"
  after = { effect = "commit_reset", with = { stopp = true } }
}`, `has no argument "stopp"`},
		{"marker's condition reads another event's fact", `property "s" {
  never = "stop"
  after = { event = "request", when = "event.outcome == 'aborted'" }
}`, "outcome"},
		{"scope on a count", `property "s" {
  at_most = 1
  of      = "stop"
  after   = { event = "tool" }
}`, "does not go with at_most"},
		{"scope reads the opening effect's argument", `property "s" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.attempt"
  after = { effect = "compact" }
  until = { event = "attempt_error", when = "event.attempt == scope.attempt", inclusive = true }
}`, ""},
		{"scope's clock and openings in within_ms", `property "s" {
  never     = "checkpoint"
  on        = "turn_end"
  when      = "event.now_ms >= scope.opened_ms"
  after     = { event = "summary_done", when = "!event.ok" }
  within_ms = "5000 * scope.openings"
}`, ""},
		{"scope's misspelt argument", `property "s" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.atempt"
  after = { effect = "compact" }
}`, `p.hcl:14:35: error: Invalid expression`},
		{"scope's misspelt argument, suggested", `property "s" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.atempt"
  after = { effect = "compact" }
}`, `the scope keeps no "atempt": it keeps opened_ms`},
		{"scope opened by an event has no arguments", `property "s" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.attempt"
  after = { event = "settled" }
}`, `the scope keeps no "attempt"`},
		{"scope in an after marker", `property "s" {
  never = "continue"
  after = { event = "compact_done", when = "event.attempt == scope.attempt" }
}`, "p.hcl:13:62: error: Invalid expression\n  scope is not available here: an after marker's condition is read before its scope opens"},
		{"scope without after", `property "s" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.attempt"
}`, "scope is not available here: the property has no after, so no scope"},
		{"scope in a rule", `group "h" {
  rule "x" {
    on   = "tool"
    when = "scope.opened_ms > 0"
  }
}`, "scope is not available here: only the conditions of a scoped property"},
		{"inclusive on an after", `property "s" {
  never = "stop"
  after = { event = "tool", inclusive = true }
}`, "Unexpected inclusive"},
		{"inclusive on an effect", `property "s" {
  never = "stop"
  after = { event = "tool" }
  until = { effect = "stop", inclusive = true }
}`, "Unexpected inclusive"},
		{"within_ms not a number", `property "s" {
  never     = "stop"
  after     = { event = "tool" }
  within_ms = "'soon'"
}`, "Wrong duration type"},
		{"within_ms without after", `property "s" {
  never     = "stop"
  within_ms = "1000"
}`, "within_ms ends a scope that after"},
		{"domain", `verify {
  domain = { "command.args" = ["", "reset"], tokens = [0, 1] }
}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte(propertyBase + tc.src)})
			if tc.err == "" {
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
				if len(p.Properties) == 0 && p.Verify == nil {
					t.Fatal("nothing decoded")
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
				t.Errorf("want an error containing %q, got:\n%s", tc.err, diags.Error())
			}
		})
	}
}

// TestWithoutPropertiesSkipsVerifyBlocks: a policy loaded to decide with
// has no properties and no verify settings, says so, and loads even when
// a property or the verify block is wrong; its own file, and a file that
// uses a built-in, alike. Loaded in full, the same sources fail.
func TestWithoutPropertiesSkipsVerifyBlocks(t *testing.T) {
	bad := `property "s" {
  never = "comit_reset"
}
verify {
  unfired = ["nope"]
}
`
	builtin := func(name string) (rules.Source, bool) {
		if name != "base" {
			return rules.Source{}, false
		}
		return rules.Source{Name: "base.hcl", Bytes: []byte(propertyBase + `property "ok" {
  never = "commit_reset"
}
`)}, true
	}
	for _, src := range []rules.Source{
		{Name: "own.hcl", Bytes: []byte(propertyBase + bad)},
		{Name: "uses.hcl", Bytes: []byte("use \"base\" {}\n" + bad)},
	} {
		if _, diags := rules.Load(src, rules.WithBuiltins(builtin)); !diags.HasErrors() {
			t.Fatalf("%s: loaded in full despite its wrong property", src.Name)
		}
		p, diags := rules.Load(src, rules.WithBuiltins(builtin), rules.WithoutProperties())
		if diags.HasErrors() {
			t.Fatalf("%s: %s", src.Name, diags.Error())
		}
		if !p.PropertiesOmitted || len(p.Properties) != 0 || p.Verify != nil {
			t.Errorf("%s: omitted %v, %d properties, verify %v", src.Name, p.PropertiesOmitted, len(p.Properties), p.Verify)
		}
		if len(p.Rules) != 1 || len(p.Plans) == 0 {
			t.Errorf("%s: %d rules, %d plans: the decisions must load as in full", src.Name, len(p.Rules), len(p.Plans))
		}
	}
	full, diags := rules.Load(rules.Source{Name: "base.hcl", Bytes: []byte(propertyBase + "property \"ok\" {\n  never = \"commit_reset\"\n}\n")})
	if diags.HasErrors() || full.PropertiesOmitted || len(full.Properties) != 1 {
		t.Fatalf("loaded in full: %v, omitted %v, %d properties", diags.Error(), full.PropertiesOmitted, len(full.Properties))
	}
}
