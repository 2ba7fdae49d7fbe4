package engine

import (
	"testing"
	"unsafe"

	"github.com/resetpolicy/resetpolicy/policies"
)

// TestRulesArePacked: every rule a decision can reach, through a bucket's
// list or its state index, lies in the engine's one array of rules, once,
// so that a group's rules share cache lines.
func TestRulesArePacked(t *testing.T) {
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		e := New(p)
		if len(e.rules) == 0 {
			t.Fatalf("%s: no packed rules", name)
		}
		lo := uintptr(unsafe.Pointer(&e.rules[0]))
		hi := lo + uintptr(len(e.rules))*unsafe.Sizeof(rule{})
		in := func(r *rule) bool { a := uintptr(unsafe.Pointer(r)); return a >= lo && a < hi }
		seen := map[*rule]bool{}
		for _, plan := range e.plans {
			for _, g := range plan {
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
		}
		// Each rule is placed once: a bucket list shares the rules that
		// do not test the dispatched fact with its neighbours.
		if len(seen) != len(e.rules) {
			t.Fatalf("%s: %d rules reached, %d packed", name, len(seen), len(e.rules))
		}
	}
}
