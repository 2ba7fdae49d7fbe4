package sweep_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/sweep"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./engine/sweep -update rewrites it); got:\n%s", path, got)
	}
}

// The values each built-in's params are explored at, and which of them
// its validation rejects: the reserve margin at and each side of the
// warning runway and the reminder margin (the thresholds it crosses), the
// force limit each side of the cap, each validation's boundary.
func TestCandidatesOfTheBuiltins(t *testing.T) {
	var b strings.Builder
	for _, name := range policies.Names() {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		fmt.Fprintf(&b, "%s\n", name)
		for _, c := range sweep.Candidates(p, nil) {
			verdict := "explored"
			if _, d := policies.Load(name, map[string]string{c.Param: c.Value}); d.HasErrors() {
				verdict = "outside validation"
			}
			fmt.Fprintf(&b, "  %s=%s  %s  (%s)\n", c.Param, c.Value, verdict, strings.Join(c.Why, "; "))
		}
	}
	golden(t, "builtins.golden", b.String())
}

// A param --set fixes is not moved.
func TestFixedParamsStay(t *testing.T) {
	p, _ := policies.Load("wipe_memory", nil)
	for _, c := range sweep.Candidates(p, map[string]bool{"reserve_margin": true}) {
		if c.Param == "reserve_margin" {
			t.Errorf("a fixed param is moved: %+v", c)
		}
	}
}

// The small policy is cmd/resetpolicy's too: proved at its defaults, it
// breaks its property at the boundary of cap's validation.
const smallFile = "../../testdata/verify/margin.hcl"

func loadSmall(set map[string]string) (*rules.Policy, error) {
	src, err := os.ReadFile(smallFile)
	if err != nil {
		return nil, err
	}
	p, diags := rules.Load(rules.Source{Name: "margin.hcl", Bytes: src}, rules.WithSet(set, "--set"))
	if diags.HasErrors() {
		return nil, errors.New(diags.Diagnostics[0].Detail)
	}
	return p, nil
}

// Each configuration with its verdict: cap at its validation's bound 1
// cancels under 3 tokens and fails, with a counterexample whose run block
// sets cap = 1; early at 3 never cancels early (a rule that setting
// leaves dead is a warning there, not a finding); limit at its own bound
// 2 is below early's default, which early's validation rejects: reported
// outside validation, not explored.
func TestRunListsEachConfiguration(t *testing.T) {
	p, err := loadSmall(nil)
	if err != nil {
		t.Fatal(err)
	}
	res := sweep.Run(p, loadSmall, nil, verify.Options{})
	var b strings.Builder
	res.WriteText(&b)
	golden(t, "margin.golden", b.String())
	if res.OK() {
		t.Error("the sweep is ok although limit=2 breaks the property")
	}
	for _, c := range res.Configs {
		for _, f := range c.Result.Findings {
			if len(f.Trace) > 0 && !strings.Contains(f.RunBlock(p.Name), "params = {") {
				t.Errorf("%s: the run block does not set the params it was found at:\n%s", c.SetText(), f.RunBlock(p.Name))
			}
		}
	}
}

// Candidates that load as one configuration are explored once: here the
// loader ignores them, so every one is the values in force.
func TestSameConfigurationExploredOnce(t *testing.T) {
	p, _ := loadSmall(nil)
	res := sweep.Run(p, func(map[string]string) (*rules.Policy, error) { return p, nil }, nil, verify.Options{})
	if len(res.Configs) != 1 || len(res.Configs[0].Candidates) == 0 {
		t.Fatalf("%d configurations, the first standing for %d candidates; want 1 for all", len(res.Configs), len(res.Configs[0].Candidates))
	}
}

// new_context holds over its params' range (its sweep is cheap enough for
// every test run; `.ci/run` sweeps all three built-ins): every
// configuration proved, its warning runway at 0 among them.
func TestNewContextOverItsRange(t *testing.T) {
	p, diags := policies.Load("new_context", nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	load := func(set map[string]string) (*rules.Policy, error) {
		q, d := policies.Load("new_context", set)
		if d.HasErrors() {
			return nil, errors.New(d.Error())
		}
		return q, nil
	}
	res := sweep.Run(p, load, nil, verify.Options{})
	var b strings.Builder
	res.WriteText(&b)
	if !res.OK() || len(res.Configs) < 2 || res.Configs[1].Set["warning_runway"] != "0" {
		t.Errorf("new_context over its range:\n%s", b.String())
	}
}
