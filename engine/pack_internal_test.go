package engine

import (
	"testing"
	"unsafe"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// TestRulesArePacked: every rule a decision on an event can reach,
// through a bucket's list or its state index, lies in its plan's one
// array of rules, once, so that a group's rules share cache lines; so
// too in a plan built on first use.
func TestRulesArePacked(t *testing.T) {
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		for _, opts := range [][]rules.Option{nil, {rules.WithoutProperties(), rules.CompileOnUse()}} {
			p, diags := policies.Load(name, nil, opts...)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			e := New(p)
			packed := 0
			for k := range e.plans {
				if err := e.buildOnUse(k); err != nil {
					t.Fatal(err)
				}
				pl := &e.plans[k]
				packed += len(pl.rules)
				checkPacked(t, name+" "+p.Plans[k].Event.Name, pl)
			}
			if packed == 0 {
				t.Fatalf("%s: no packed rules", name)
			}
		}
	}
}

func checkPacked(t *testing.T, name string, pl *plan) {
	t.Helper()
	if len(pl.rules) == 0 {
		for _, g := range pl.groups {
			if len(g.rules) > 0 {
				t.Fatalf("%s: group %s has rules and the plan packed none", name, g.name)
			}
		}
		return
	}
	lo := uintptr(unsafe.Pointer(&pl.rules[0]))
	hi := lo + uintptr(len(pl.rules))*unsafe.Sizeof(rule{})
	in := func(r *rule) bool { a := uintptr(unsafe.Pointer(r)); return a >= lo && a < hi }
	seen := map[*rule]bool{}
	for _, g := range pl.groups {
		for _, b := range g.buckets {
			for _, r := range b.rules {
				seen[r] = true
				if !in(r) {
					t.Fatalf("%s: rule %s of group %s is not in the packed array", name, r.name, g.name)
				}
			}
			for _, rs := range b.byState {
				for _, r := range rs {
					if !in(r) {
						t.Fatalf("%s: rule %s of group %s's state index is not in the packed array", name, r.name, g.name)
					}
				}
			}
		}
	}
	// Each rule is placed once: a bucket list shares the rules that do
	// not test the dispatched fact with its neighbours.
	if len(seen) != len(pl.rules) {
		t.Fatalf("%s: %d rules reached, %d packed", name, len(seen), len(pl.rules))
	}
}
