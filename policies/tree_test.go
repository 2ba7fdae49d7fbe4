package policies_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

var update = flag.Bool("update", false, "rewrite the built-ins' syntax trees (*.hcl.tree)")

// TestTreesAreCurrent requires each built-in's embedded syntax tree to be
// the encoding of its file as it is now. After editing a built-in:
//
//	go test ./policies -run TestTreesAreCurrent -update
func TestTreesAreCurrent(t *testing.T) {
	for _, name := range policies.Names() {
		src, _ := policies.Source(name)
		file, diags := rules.ParseHCL(src.Bytes, src.Name)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		want, err := hcltree.Encode(file, src.Bytes)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if *update {
			if err := os.WriteFile(name+".hcl.tree", want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(src.Tree, want) {
			t.Errorf("%s.hcl.tree is not the tree of %s.hcl as it is now (a built-in then loads by parsing, at twice the cost): run go test ./policies -run TestTreesAreCurrent -update", name, name)
		}
	}
}

// The tree is what a load of a built-in uses: with it the load allocates
// far less than parsing the same file, and the policy is the same.
func TestLoadUsesTheTree(t *testing.T) {
	src, _ := policies.Source(policies.Default)
	if len(src.Tree) == 0 {
		t.Fatal("the default built-in has no tree")
	}
	parsed := src
	parsed.Tree = nil
	load := func(s rules.Source) func() {
		return func() {
			if _, diags := rules.Load(s, rules.WithBuiltins(policies.Source)); diags.HasErrors() {
				t.Fatal(diags)
			}
		}
	}
	withTree := testing.AllocsPerRun(5, load(src))
	without := testing.AllocsPerRun(5, load(parsed))
	if withTree > 0.8*without {
		t.Fatalf("a load with the tree makes %.0f allocations, without %.0f: the tree is not used", withTree, without)
	}
	// A tree of other bytes is not used: the file is parsed.
	stale := src
	stale.Bytes = append(bytes.Clone(src.Bytes), "\n# edited\n"...)
	if got := testing.AllocsPerRun(5, load(stale)); got < 0.9*without {
		t.Fatalf("a load with a stale tree makes %.0f allocations, a parse %.0f: the stale tree was used", got, without)
	}
}
