package rules_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/zclconf/go-cty/cty"
)

const small = `
policy "small" {
  description = "a small policy"
}
param "runway" {
  type    = number
  default = 100
  validation {
    condition     = "value >= 0"
    error_message = "runway must not be negative."
  }
}
param "delays" {
  type    = list(number)
  default = [5000, 10000, 20000]
}
param "label" {
  type    = string
  default = "x"
}
param "on" {
  type    = bool
  default = true
}
slot "phase" {
  values = ["idle", "armed"]
}
group "g" {
  rule "arm" {
    on   = "request"
    when = "event.tokens > param.runway && param.on"
    to   = { phase = "armed" }
  }
}
`

const smallJSON = `{
  "policy": {"small": {"description": "a small policy"}},
  "param": {"runway": {"type": "number", "default": 100}, "delays": {"type": "list(number)", "default": [5000]}},
  "slot": {"phase": {"values": ["idle", "armed"]}},
  "group": {"g": {"rule": {"arm": {"on": "request", "when": "event.tokens > param.runway", "to": {"phase": "armed"}}}}}
}`

func TestNativeAndJSONFormsLoadAlike(t *testing.T) {
	for _, src := range []rules.Source{{Name: "small.hcl", Bytes: []byte(small)}, {Name: "small.hcl.json", Bytes: []byte(smallJSON)}} {
		p, diags := rules.Load(src)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", src.Name, diags.Error())
		}
		if p.Name != "small" || len(p.Rules) != 1 || p.Rules[0].Name != "arm" {
			t.Errorf("%s: %+v", src.Name, p)
		}
		runway, _ := p.Param("runway")
		if runway.Value.AsBigFloat().String() != "100" || runway.Origin != "default" {
			t.Errorf("%s: runway %v from %s", src.Name, runway.Value, runway.Origin)
		}
		if pl := p.PlanFor("request"); pl == nil || len(pl.Groups) != 1 || len(pl.Groups[0].Rules) != 1 {
			t.Errorf("%s: the request plan holds the rule", src.Name)
		}
		if pl := p.PlanFor("turn_end"); len(pl.Groups[0].Rules) != 0 {
			t.Errorf("%s: the turn_end plan is empty", src.Name)
		}
	}
}

func TestOverridesConvertAndValidate(t *testing.T) {
	src := rules.Source{Name: "small.hcl", Bytes: []byte(small)}
	p, diags := rules.Load(src, rules.WithSet(map[string]string{"runway": "250", "delays": "[1, 2]", "label": "y", "on": "false"}, "--set"))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r, _ := p.Param("runway")
	d, _ := p.Param("delays")
	if r.Value.AsBigFloat().String() != "250" || r.Origin != "--set" || d.Value.LengthInt() != 2 {
		t.Errorf("runway %v (%s), delays %v", r.Value, r.Origin, d.Value)
	}
	cases := []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"runway": "-1"}, `--set runway=-1: param "runway": runway must not be negative.`},
		{map[string]string{"runway": "many"}, `param "runway" is number: "many" is not a number`},
		{map[string]string{"on": "yes"}, `"yes" is not true or false`},
		{map[string]string{"delays": "[oops"}, `is not a list`},
		{map[string]string{"runwya": "1"}, `policy "small" has no param "runwya"; did you mean "runway"?`},
	}
	for _, tc := range cases {
		_, diags := rules.Load(src, rules.WithSet(tc.set, "--set"))
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("%v: got %q, want %q", tc.set, diags.Error(), tc.want)
		}
	}
}

func TestLaterOverridesWin(t *testing.T) {
	rng := &hcl.Range{Filename: "project.hcl"}
	p, diags := rules.Load(rules.Source{Name: "small.hcl", Bytes: []byte(small)},
		rules.WithOverrides(rules.Override{Name: "runway", Value: cty.NumberIntVal(7), Origin: "project.hcl", Range: rng}),
		rules.WithSet(map[string]string{"runway": "9"}, "RESETPOLICY_SET"))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r, _ := p.Param("runway")
	if r.Value.AsBigFloat().String() != "9" || r.Origin != "RESETPOLICY_SET" {
		t.Errorf("runway %v from %s", r.Value, r.Origin)
	}
}

func TestUseTakesABuiltinWithOverrides(t *testing.T) {
	src := rules.Source{Name: ".pi/resetpolicy.hcl", Bytes: []byte("use \"wipe_memory\" {\n  warning_runway = 8192\n}\n")}
	p, diags := rules.Load(src, rules.WithBuiltins(policies.Source))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	w, _ := p.Param("warning_runway")
	if p.Name != "wipe_memory" || p.File != ".pi/resetpolicy.hcl" || w.Origin != ".pi/resetpolicy.hcl" || w.Value.AsBigFloat().String() != "8192" {
		t.Errorf("policy %s from %s, warning_runway %v from %s", p.Name, p.File, w.Value, w.Origin)
	}
	// A policy block beside use names the composed policy.
	p, diags = rules.Load(rules.Source{Name: "x.hcl", Bytes: []byte("use \"wipe_memory\" {}\npolicy \"x\" {}\n")}, rules.WithBuiltins(policies.Source))
	if diags.HasErrors() || p.Name != "x" {
		t.Errorf("use plus a policy block: %v %s", p, diags.Error())
	}
}

func TestEveryBuiltinLoads(t *testing.T) {
	names := policies.Names()
	if len(names) != 3 {
		t.Errorf("built-ins = %v", names)
	}
	for _, n := range names {
		if _, diags := policies.Load(n, nil); diags.HasErrors() {
			t.Errorf("%s: %s", n, diags.Error())
		}
	}
}
