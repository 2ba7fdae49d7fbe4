package verify_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// refactorKinds are the rewrites the set must hold at least one of each.
var refactorKinds = []string{
	"rules swapped",     // two rules of a group whose guards are disjoint
	"derived inlined",   // a derived value written out in the guard that reads it
	"de morgan",         // a guard rewritten by De Morgan's laws
	"groups reordered",  // two groups that never act on one decision together
	"rule split",        // one rule as two with complementary guards
	"composed override", // a team file over the built-in restating it
	"renamed",           // a slot or a slot value renamed everywhere
	"equal default",     // a param's default written as an equal expression
	"rule deleted",      // a rule no reachable state needs (a composed disable)
	"properties reordered",
}

// refactor is one behaviour-keeping rewrite of a built-in.
type refactor struct {
	name, policy, kind, keeps string
	// sameStates: the rewrite keeps the abstract state space, so verify
	// explores as many states as for the built-in; otherwise statesWhy
	// says why it does not.
	sameStates bool
	statesWhy  string
	edits      []edit
	// rename, when set, is a word renamed everywhere in the built-in and in
	// its test file: {old, new}.
	rename []string
	// alias, when set, is a rule the rewrite adds that the test file's
	// rule lists know by another name: {new, old} (a split rule's second
	// half).
	alias []string
	// compose, when set, is a team policy file over the built-in, used
	// instead of an edited copy.
	compose string
}

// readRefactors reads testdata/refactors/refactors.txt (its header says
// the format).
func readRefactors(t *testing.T) []refactor {
	t.Helper()
	var out []refactor
	for _, e := range readSet(t, "testdata/refactors/refactors.txt", []string{"policy", "kind", "keeps", "states", "rename", "alias"}, []string{"compose"}) {
		r := refactor{name: e.name, policy: e.fields["policy"], kind: e.fields["kind"], keeps: e.fields["keeps"],
			edits: e.edits, compose: e.fields["compose"]}
		switch states := e.fields["states"]; {
		case states == "same":
			r.sameStates = true
		case strings.HasPrefix(states, "differ: "):
			r.statesWhy = strings.TrimPrefix(states, "differ: ")
		default:
			t.Fatalf("refactor %q: states: %q, want same or differ: WHY", r.name, states)
		}
		if v, ok := e.fields["rename"]; ok {
			if r.rename = strings.Fields(v); len(r.rename) != 2 {
				t.Fatalf("refactor %q: rename: %q, want OLD NEW", r.name, v)
			}
		}
		if v, ok := e.fields["alias"]; ok {
			if r.alias = strings.Fields(v); len(r.alias) != 2 {
				t.Fatalf("refactor %q: alias: %q, want NEW OLD", r.name, v)
			}
		}
		if r.keeps == "" || !slices.Contains(refactorKinds, r.kind) {
			t.Fatalf("refactor %q: kind %q, keeps %q: want one of %q and what it keeps", r.name, r.kind, r.keeps, refactorKinds)
		}
		if (r.compose != "") == (len(r.edits) > 0 || r.rename != nil) {
			t.Fatalf("refactor %q: want either edits or a compose file", r.name)
		}
		out = append(out, r)
	}
	return out
}

// renameWord replaces every whole word old in text by new. New must not be
// there, so the rename merges nothing; in the policy (need) old must be.
func renameWord(t *testing.T, what, text string, rename []string, need bool) string {
	t.Helper()
	word := func(w string) *regexp.Regexp { return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`) }
	if word(rename[1]).MatchString(text) {
		t.Fatalf("%s already has %q: the rename would merge two names", what, rename[1])
	}
	if need && !word(rename[0]).MatchString(text) {
		t.Fatalf("%s has no %q to rename", what, rename[0])
	}
	return word(rename[0]).ReplaceAllLiteralString(text, rename[1])
}

// load loads the rewrite, with the overrides of a test file's run.
func (r refactor) load(t *testing.T, ov ...rules.Override) (*rules.Policy, rules.Diagnostics) {
	t.Helper()
	if r.compose != "" {
		return rules.Load(rules.Source{Name: "team.hcl", Bytes: []byte(r.compose)},
			rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names), rules.WithOverrides(ov...))
	}
	src, ok := policies.Source(r.policy)
	if !ok {
		t.Fatalf("no built-in %q", r.policy)
	}
	text := applyEdits(t, r.policy, string(src.Bytes), r.edits)
	if r.rename != nil {
		text = renameWord(t, r.policy+".hcl", text, r.rename, true)
	}
	return rules.Load(rules.Source{Name: r.policy + "_refactor.hcl", Bytes: []byte(text)}, rules.WithOverrides(ov...))
}

// TestRefactorsVerifyClean: every behaviour-keeping rewrite of a built-in
// in testdata/refactors verifies clean — every property of the built-in
// holds, no finding, the exploration complete, as many states as the
// built-in's where the rewrite keeps the state space — and passes the
// built-in's own test file. A verify that reported a false finding on a
// rewrite that changes nothing a host can see fails here.
func TestRefactorsVerifyClean(t *testing.T) {
	t.Parallel() // seconds of CPU: beside the package's other long tests
	rs := readRefactors(t)
	per, kinds := map[string]int{}, map[string]bool{}
	for _, r := range rs {
		per[r.policy]++
		kinds[r.kind] = true
	}
	for _, k := range refactorKinds {
		if !kinds[k] {
			t.Errorf("no refactor of kind %q", k)
		}
	}
	for _, name := range policies.Names() {
		if per[name] < 3 {
			t.Errorf("%d refactors of %s; each built-in has at least 3", per[name], name)
		}
	}
	for _, r := range rs {
		t.Run(r.name, func(t *testing.T) {
			orig := builtinResult(t, r.policy)
			p, diags := r.load(t)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got := verify.Check(p, verify.Options{})
			if got.Bounded || got.Incomplete {
				t.Errorf("the exploration was cut at %d states (%v): it must be complete", got.States, got.Bound)
			}
			for _, f := range got.Findings {
				t.Errorf("finding %s: %s\n%s", f.Name, f.Message, f.EvalLines())
			}
			// The rewrite keeps every property of the built-in, and each holds.
			var missing []string
			for _, name := range orig.Holds {
				if !slices.Contains(got.Holds, name) {
					missing = append(missing, name)
				}
			}
			if len(missing) > 0 || len(got.Holds) != len(orig.Holds) || len(got.Holds) != len(p.Properties) {
				t.Errorf("%d properties, %d hold; the built-in's %d hold; not holding or gone: %q", len(p.Properties), len(got.Holds), len(orig.Holds), missing)
			}
			switch {
			case r.sameStates && got.States != orig.States:
				t.Errorf("%d states, the built-in %d: the rewrite keeps the state space", got.States, orig.States)
			case !r.sameStates && got.States == orig.States:
				t.Errorf("%d states, as many as the built-in, though the entry says they differ (%s)", got.States, r.statesWhy)
			}
			testsPass(t, r)
		})
	}
}

// testsPass runs the built-in's own test file, with the rename made in it
// too, against the rewrite: its run blocks are a second witness that the
// rewrite keeps the behaviour.
func testsPass(t *testing.T, r refactor) {
	t.Helper()
	src, ok := policies.TestSource(r.policy)
	if !ok {
		t.Fatalf("no test file for %s", r.policy)
	}
	text := string(src.Bytes)
	if r.rename != nil {
		text = renameWord(t, src.Name, text, r.rename, false)
	}
	tf, diags := testfile.Parse([]byte(text), src.Name)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runner := testrun.New(func(_ *testfile.File, ov []rules.Override) (*rules.Policy, rules.Diagnostics) {
		return r.load(t, ov...)
	})
	runner.RunFile(tf)
	rep := runner.Report()
	if rep.Passed() == 0 {
		t.Errorf("no run of %s passed", src.Name)
	}
	for _, res := range rep.Results {
		for _, f := range res.Failures {
			if !r.aliased(f) {
				t.Errorf("%s fails against the rewrite:\n%s", res.Name(), res.Text())
				break
			}
		}
	}
}

// aliased reports whether a failure is only a rule list naming the
// rewrite's alias where the test file names the rule it stands for.
func (r refactor) aliased(f *testrun.Failure) bool {
	if r.alias == nil || f.What != "rules" {
		return false
	}
	var want, got []string
	if json.Unmarshal([]byte(f.Want), &want) != nil || json.Unmarshal([]byte(f.Got), &got) != nil {
		return false
	}
	for i := range got {
		if got[i] == r.alias[0] {
			got[i] = r.alias[1]
		}
	}
	return slices.Equal(want, got)
}
