package verify_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/sweep"
	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// mutant is one realistic seed-violating bug in a copy of a built-in.
type mutant struct {
	name, policy, seed, property string
	edits                        []edit
	// heavy: the counterexample needs the whole exploration (a loop, or
	// one deep in it); -short skips it.
	heavy bool
	// paramsRange: the bug shows only at a param value other than the
	// default, one of those `verify --params range` explores.
	paramsRange bool
}

// readMutants reads testdata/mutants/mutants.txt (its header says the
// format).
func readMutants(t *testing.T) []mutant {
	t.Helper()
	var out []mutant
	for _, e := range readSet(t, "testdata/mutants/mutants.txt", []string{"policy", "seed", "property", "heavy", "params"}, nil) {
		m := mutant{name: e.name, policy: e.fields["policy"], seed: e.fields["seed"], property: e.fields["property"],
			heavy: e.fields["heavy"] == "yes", edits: e.edits}
		if v, ok := e.fields["params"]; ok {
			if v != "range" {
				t.Fatalf("mutant %q: params: %q, want range", m.name, v)
			}
			m.paramsRange = true
		}
		out = append(out, m)
	}
	return out
}

// TestMutants: every mutant of a built-in fails verify on the property of
// the seed sentence it breaks, with a counterexample that replays in eval
// and a run block that fails in test; the suite covers every built-in.
func TestMutants(t *testing.T) {
	t.Parallel() // seconds of CPU: beside the package's other long tests
	ms := readMutants(t)
	if len(ms) < 20 {
		t.Fatalf("%d mutants; the suite keeps at least 20", len(ms))
	}
	per := map[string]int{}
	covered := map[string]bool{}
	for _, m := range ms {
		per[m.policy]++
		covered[m.policy+"\x00"+m.property] = true
		t.Run(m.name, func(t *testing.T) {
			if m.heavy && testing.Short() {
				t.Skip("a whole exploration: skipped with -short")
			}
			src, ok := policies.Source(m.policy)
			if !ok {
				t.Fatalf("no built-in %q", m.policy)
			}
			text := applyEdits(t, m.policy, string(src.Bytes), m.edits)
			p, diags := rules.Load(rules.Source{Name: m.policy + "_mutant.hcl", Bytes: []byte(text)})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if !hasProperty(p, m.property) {
				t.Fatalf("%s declares no property %q", m.policy, m.property)
			}
			if m.paramsRange {
				overRange(t, m, text, p)
				return
			}
			r := verify.Check(p, verify.Options{FailFast: true})
			f := findingOf(r, m.property)
			if f == nil {
				var names []string
				for _, x := range r.Findings {
					names = append(names, x.Name)
				}
				t.Fatalf("verify does not fail %q (seed %s); findings: %v", m.property, m.seed, names)
			}
			if len(f.Trace) == 0 {
				t.Fatalf("%q fails without a counterexample", m.property)
			}
			replays(t, p, f)
			runFails(t, p, f)
			if !f.Loop {
				// Against the built-in itself the same run passes: it fails
				// only until the bug is fixed.
				runPasses(t, load(t, m.policy), f)
			}
		})
	}
	// Every safety sentence a built-in declares is broken by some mutant:
	// none is vacuous.
	for _, name := range policies.Names() {
		if per[name] < 5 {
			t.Errorf("%d mutants of %s; each built-in has at least 5", per[name], name)
		}
		for _, pr := range load(t, name).Properties {
			if !covered[name+"\x00"+pr.Name] {
				t.Errorf("no mutant of %s breaks %q", name, pr.Name)
			}
		}
	}
}

func hasProperty(p *rules.Policy, name string) bool {
	for _, pr := range p.Properties {
		if pr.Name == name {
			return true
		}
	}
	return false
}

func findingOf(r *verify.Result, name string) *verify.Finding {
	for i := range r.Findings {
		if r.Findings[i].Name == name {
			return &r.Findings[i]
		}
	}
	return nil
}

// overRange checks a mutant whose bug the values in force hide: verify
// at the defaults does not find it, and one of the values `verify
// --params range` explores does, with a counterexample that replays under
// that value and a run block that sets it, failing against the mutant
// and passing against the built-in when pasted as printed.
func overRange(t *testing.T, m mutant, text string, p *rules.Policy) {
	t.Helper()
	if f := findingOf(verify.Check(p, verify.Options{FailFast: true}), m.property); f != nil {
		t.Fatalf("verify finds %q at the defaults already; the mutant needs no params: range", m.property)
	}
	loadMutant := func(set map[string]string, ov ...rules.Override) (*rules.Policy, rules.Diagnostics) {
		return rules.Load(rules.Source{Name: m.policy + "_mutant.hcl", Bytes: []byte(text)}, rules.WithSet(set, "--set"), rules.WithOverrides(ov...))
	}
	for _, c := range sweep.Candidates(p, nil) {
		set := map[string]string{c.Param: c.Value}
		q, diags := loadMutant(set)
		if diags.HasErrors() {
			continue // outside validation
		}
		f := findingOf(verify.Check(q, verify.Options{FailFast: true}), m.property)
		if f == nil {
			continue
		}
		if len(f.Trace) == 0 {
			t.Fatalf("%q fails at %s=%s without a counterexample", m.property, c.Param, c.Value)
		}
		if f.Params[c.Param] != c.Value {
			t.Fatalf("the counterexample found at %s=%s sets params %v", c.Param, c.Value, f.Params)
		}
		replays(t, q, f)
		pasted := func(load func(ov ...rules.Override) (*rules.Policy, rules.Diagnostics)) int {
			src := "policy = \"" + m.policy + "\"\n" + f.RunBlock(m.policy)
			tf, diags := testfile.Parse([]byte(src), "verify.test.hcl")
			if diags.HasErrors() {
				t.Fatalf("the run block does not parse:\n%s\n%s", diags.Error(), src)
			}
			runner := testrun.New(func(_ *testfile.File, ov []rules.Override) (*rules.Policy, rules.Diagnostics) { return load(ov...) })
			runner.RunFile(tf)
			return runner.Report().Failed()
		}
		if n := pasted(func(ov ...rules.Override) (*rules.Policy, rules.Diagnostics) { return loadMutant(nil, ov...) }); n != 1 {
			t.Errorf("the run block, with its params, passes against the mutant:\n%s", f.RunBlock(m.policy))
		}
		if n := pasted(func(ov ...rules.Override) (*rules.Policy, rules.Diagnostics) {
			return policies.Load(m.policy, nil, rules.WithOverrides(ov...))
		}); n != 0 {
			t.Errorf("the run block, with its params, fails against the built-in too:\n%s", f.RunBlock(m.policy))
		}
		return
	}
	t.Fatalf("no value verify --params range explores finds %q (seed %s)", m.property, m.seed)
}
