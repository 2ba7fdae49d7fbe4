package verify_test

import (
	"os"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// mutant is one realistic seed-violating bug in a copy of a built-in.
type mutant struct {
	name, policy, seed, property string
	edits                        []edit
	// heavy: the counterexample needs the whole exploration (a loop, or
	// one deep in it); -short skips it.
	heavy bool
}

// edit replaces old, which the built-in holds once, by new.
type edit struct{ old, new string }

// readMutants reads testdata/mutants/mutants.txt (its header says the
// format).
func readMutants(t *testing.T) []mutant {
	t.Helper()
	b, err := os.ReadFile("testdata/mutants/mutants.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []mutant
	for _, block := range strings.Split(string(b), "\n---\n")[1:] {
		var m mutant
		var field *string
		for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
			key, val, ok := strings.Cut(line, ": ")
			if ok {
				switch key {
				case "name":
					m.name, field = val, nil
					continue
				case "policy":
					m.policy, field = val, nil
					continue
				case "seed":
					m.seed, field = val, nil
					continue
				case "property":
					m.property, field = val, nil
					continue
				case "heavy":
					m.heavy, field = val == "yes", nil
					continue
				case "old":
					m.edits = append(m.edits, edit{old: val})
					field = &m.edits[len(m.edits)-1].old
					continue
				case "new":
					if len(m.edits) == 0 {
						t.Fatalf("mutant %q: new before old", m.name)
					}
					m.edits[len(m.edits)-1].new = val
					field = &m.edits[len(m.edits)-1].new
					continue
				}
			}
			if field == nil {
				t.Fatalf("mutant %q: stray line %q", m.name, line)
			}
			*field += "\n" + line
		}
		out = append(out, m)
	}
	return out
}

// TestMutants: every mutant of a built-in fails verify on the property of
// the seed sentence it breaks, with a counterexample that replays in eval
// and a run block that fails in test; the suite covers every built-in.
func TestMutants(t *testing.T) {
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
			text := string(src.Bytes)
			for _, e := range m.edits {
				if strings.Count(text, e.old) != 1 {
					t.Fatalf("the text to mutate is in %s.hcl %d times, want once; update the mutant:\n%s", m.policy, strings.Count(text, e.old), e.old)
				}
				text = strings.Replace(text, e.old, e.new, 1)
			}
			p, diags := rules.Load(rules.Source{Name: m.policy + "_mutant.hcl", Bytes: []byte(text)})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if !hasProperty(p, m.property) {
				t.Fatalf("%s declares no property %q", m.policy, m.property)
			}
			r := verify.Check(p, verify.Options{FailFast: true})
			var f *verify.Finding
			for i := range r.Findings {
				if r.Findings[i].Name == m.property {
					f = &r.Findings[i]
				}
			}
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
