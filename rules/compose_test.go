package rules_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/zclconf/go-cty/cty"
)

func loadCompose(t *testing.T, name, text string) (*rules.Policy, rules.Diagnostics) {
	t.Helper()
	return rules.Load(rules.Source{Name: name, Bytes: []byte(text)}, rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names))
}

func ruleNames(rs []*rules.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// The README's composed project: one added rule in a group of its own, one
// replaced rule in the built-in's group at the built-in's place.
func TestComposedProjectExtendsTheBuiltin(t *testing.T) {
	p, diags := rules.LoadFile("../testdata/compose/resetpolicy.hcl", rules.WithBuiltins(policies.Source))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	base, _ := policies.Load("wipe_memory", nil)
	c := p.Composition
	if c == nil || c.Base != "wipe_memory" || !c.InheritTests {
		t.Fatalf("composition = %+v", c)
	}
	if len(p.Rules) != len(base.Rules)+1 {
		t.Errorf("%d rules, want the built-in's %d + 1", len(p.Rules), len(base.Rules))
	}
	var request *rules.Group
	for _, g := range p.Groups {
		if g.Name == "request" {
			request = g
		}
	}
	var baseRequest *rules.Group
	for _, g := range base.Groups {
		if g.Name == "request" {
			baseRequest = g
		}
	}
	if !slices.Equal(ruleNames(request.Rules), ruleNames(baseRequest.Rules)) {
		t.Errorf("the replaced rule moved: %v", ruleNames(request.Rules))
	}
	r := request.Rules[0]
	if r.Name != "tool_refused_while_disabled" || c.RuleOrigin(r) != rules.Replaced || !strings.HasSuffix(r.DeclRange.Filename, "compose/resetpolicy.hcl") {
		t.Errorf("first request rule %s from %s is %s", r.Name, r.DeclRange.Filename, c.RuleOrigin(r))
	}
	if old := c.Replaced["tool_refused_while_disabled"]; old == nil || old.DeclRange.Filename != "policies/wipe_memory.hcl" {
		t.Errorf("replaced = %v", old)
	}
	last := p.Groups[len(p.Groups)-1]
	if last.Name != "team" || len(last.Rules) != 1 || c.RuleOrigin(last.Rules[0]) != rules.Added {
		t.Errorf("last group %s %v", last.Name, ruleNames(last.Rules))
	}
	if _, ok := p.Message("model_notice"); !ok {
		t.Error("the added message is missing")
	}
	w, _ := p.Param("warning_runway")
	if w.Value.AsBigFloat().String() != "20000" {
		t.Errorf("warning_runway = %v", w.Value)
	}
}

const teamPolicy = `
use "wipe_memory" {
  team_margin = 5
}
param "team_margin" {
  type    = number
  default = 1
}
slot "nudged" {
  type = bool
}
derived "nearly_full" {
  value = "remaining <= event.reserve + param.team_margin"
}
group "request" {
  rule "team_last_resort" {
    on   = "turn_end"
    when = "nearly_full && !state.nudged"
    set  = { nudged = "true" }
  }
}
disable "budget_reminder_staged_once_per_window" {
  reason = "the team keeps no notes"
}
inherit_tests = false
`

func TestComposeAddsToABuiltinGroupAndDisables(t *testing.T) {
	p, diags := loadCompose(t, "team.hcl", teamPolicy)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	c := p.Composition
	if c.InheritTests {
		t.Error("inherit_tests = false was not read")
	}
	if len(c.Disabled) != 1 || c.Disabled[0].Reason != "the team keeps no notes" {
		t.Errorf("disabled = %+v", c.Disabled)
	}
	if slices.Contains(ruleNames(p.Rules), "budget_reminder_staged_once_per_window") {
		t.Error("the disabled rule is still there")
	}
	for _, g := range p.Groups {
		if g.Name == "request" {
			last := g.Rules[len(g.Rules)-1]
			if last.Name != "team_last_resort" || last.Group != g {
				t.Errorf("the added rule is not last in request: %s", last.Name)
			}
		}
		if slices.Contains(ruleNames(g.Rules), "budget_reminder_staged_once_per_window") {
			t.Error("the disabled rule is still in its group")
		}
	}
	m, _ := p.Param("team_margin")
	if m.Value.AsBigFloat().String() != "5" {
		t.Errorf("an added param is not overridable in use: %v", m.Value)
	}
	s, ok := p.Slot("nudged")
	if !ok || s.Index != len(p.Slots)-1 {
		t.Errorf("added slot index %v", s)
	}
}

func TestComposeDiagnostics(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"replace a missing rule", "use \"wipe_memory\" {}\noverride \"tool_request_mark_window\" {\n  on = \"tool\"\n}\n",
			`team.hcl:2:10: error: Unknown built-in rule
  built-in wipe_memory has no rule "tool_request_mark_window" to replace; did you mean "tool_request_marks_window"?`},
		{"disable a missing rule", "use \"wipe_memory\" {}\ndisable \"settle_clear_automatic_close_out\" {}\n",
			`did you mean "settle_clears_automatic_close_out"?`},
		{"add a rule of a built-in name", "use \"wipe_memory\" {}\ngroup \"team\" {\n  rule \"turn_end_commits_tool_request\" {\n    on = \"turn_end\"\n  }\n}\n",
			`, in built-in wipe_memory; to replace it, write override "turn_end_commits_tool_request" { … }`},
		{"add a param of a built-in name", "use \"wipe_memory\" {}\nparam \"warning_runway\" {\n  type = number\n  default = 1\n}\n",
			`param "warning_runway" is already declared at policies/wipe_memory.hcl:`},
		{"an error inside a replacement names the rule replaced", "use \"wipe_memory\" {}\noverride \"tool_refused_while_disabled\" {\n  on   = \"tool\"\n  when = \"event.tokenz > 0\"\n}\n",
			`(in the replacement of built-in wipe_memory's rule "tool_refused_while_disabled", policies/wipe_memory.hcl:`},
		{"replace twice", "use \"wipe_memory\" {}\noverride \"tool_refused_while_disabled\" {\n  on = \"tool\"\n}\ndisable \"tool_refused_while_disabled\" {}\n",
			`already replaced or added in this file`},
		{"a misspelt built-in", "use \"wipe_memroy\" {}\n",
			`there is no built-in policy "wipe_memroy"; did you mean "wipe_memory"?`},
	} {
		_, diags := loadCompose(t, "team.hcl", tc.src)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, diags.Error(), tc.want)
		}
	}
}

// The effective source of a composed file is itself a policy that loads
// to the same machine, and says where each part comes from.
func TestEffectiveSourceOfAComposedFile(t *testing.T) {
	p, diags := rules.LoadFile("../testdata/compose/resetpolicy.hcl", rules.WithBuiltins(policies.Source))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	src, err := rules.EffectiveSource(p)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, want := range []string{
		"# inherited from wipe_memory\nparam \"reserve_margin\"",
		"# inherited from wipe_memory; value set by ../testdata/compose/resetpolicy.hcl:4:20 (the built-in's default is 12288)\nparam \"warning_runway\" {\n  type        = number\n  default     = 20000",
		"  # replaced by ../testdata/compose/resetpolicy.hcl:28:1: the built-in's rule is at policies/wipe_memory.hcl:",
		"# added by ../testdata/compose/resetpolicy.hcl:16:1\ngroup \"team\" {",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("effective source lacks %q", want)
		}
	}
	q, diags := rules.Load(rules.Source{Name: "effective.hcl", Bytes: src})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if !slices.Equal(ruleNames(q.Rules), ruleNames(p.Rules)) || len(q.Slots) != len(p.Slots) || len(q.Messages) != len(p.Messages) {
		t.Errorf("the effective source loads to another policy: %v", ruleNames(q.Rules))
	}
	// Rules added to a built-in group sit at its end; added declarations
	// follow the built-in's.
	team, diags := loadCompose(t, "team.hcl", teamPolicy)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	src, err = rules.EffectiveSource(team)
	if err != nil {
		t.Fatal(err)
	}
	q, diags = rules.Load(rules.Source{Name: "effective.hcl", Bytes: src})
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	if !slices.Equal(ruleNames(q.Rules), ruleNames(team.Rules)) || len(q.Slots) != len(team.Slots) || len(q.Derived) != len(team.Derived) {
		t.Errorf("the effective source of a group extension loads to another policy")
	}
	for _, g := range q.Groups {
		if g.Name == "request" && g.Rules[len(g.Rules)-1].Name != "team_last_resort" {
			t.Errorf("the added rule is not last in its group")
		}
	}
	// Disabled rules are shown as comments where they were.
	d, diags := loadCompose(t, "team.hcl", "use \"wipe_memory\" {}\ndisable \"tool_refused_while_disabled\" {\n  reason = \"why\"\n}\n")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	src, _ = rules.EffectiveSource(d)
	if !regexp.MustCompile(`  # rule "tool_refused_while_disabled" \(policies/wipe_memory.hcl:\d+:3\) disabled by team.hcl:2:9: why`).Match(src) {
		t.Errorf("no comment for the disabled rule")
	}
	if _, err := os.Stat("../testdata/compose/resetpolicy.test.hcl"); err != nil {
		t.Error(err)
	}
}

// docs/language.md shows the composed project and its test file as they are.
func TestReadmeShowsTheComposedProject(t *testing.T) {
	readme, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../testdata/compose/resetpolicy.hcl", "../testdata/compose/resetpolicy.test.hcl"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "```hcl\n"+string(b)+"```") {
			t.Errorf("docs/language.md does not show %s as it is", f)
		}
	}
}

// A composed file's values and the user's overrides meet in one order:
// the use block's values first, then --set, the environment and the user
// config in the order given, each later one winning; an override that
// yields gives way to a value the file sets, and only to that.
func TestComposePrecedence(t *testing.T) {
	const file = "use \"wipe_memory\" {\n  warning_runway = 20000\n}\n"
	num := func(v int64) cty.Value { return cty.NumberIntVal(v) }
	for _, tc := range []struct {
		name      string
		overrides []rules.Override
		runway    int64
		origin    string
		reminder  int64
	}{
		{"the file alone", nil, 20000, "team.hcl", 24576},
		{"--set over the file", []rules.Override{{Name: "warning_runway", Value: num(9000), Origin: "--set"}}, 9000, "--set", 24576},
		{"the later of two overrides", []rules.Override{
			{Name: "warning_runway", Value: num(9000), Origin: "RESETPOLICY_PARAM_WARNING_RUNWAY"},
			{Name: "warning_runway", Value: num(8000), Origin: "--set"}}, 8000, "--set", 24576},
		{"a yielding user value under the file's", []rules.Override{{Name: "warning_runway", Value: num(9000), Origin: "user config", Yield: true}}, 20000, "team.hcl", 24576},
		{"a yielding user value where the file sets none", []rules.Override{{Name: "reminder_margin", Value: num(30000), Origin: "user config", Yield: true}}, 20000, "team.hcl", 30000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := rules.Load(rules.Source{Name: "team.hcl", Bytes: []byte(file)}, rules.WithBuiltins(policies.Source),
				rules.WithBuiltinNames(policies.Names), rules.WithOverrides(tc.overrides...))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			for _, x := range p.Params {
				switch x.Name {
				case "warning_runway":
					if !x.Value.Equals(num(tc.runway)).True() || !strings.HasPrefix(x.Origin, tc.origin) {
						t.Errorf("warning_runway = %s from %q, want %d from %s", x.Value.AsBigFloat(), x.Origin, tc.runway, tc.origin)
					}
				case "reminder_margin":
					if !x.Value.Equals(num(tc.reminder)).True() {
						t.Errorf("reminder_margin = %s, want %d", x.Value.AsBigFloat(), tc.reminder)
					}
				}
			}
		})
	}
}
