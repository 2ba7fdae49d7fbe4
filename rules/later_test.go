package rules_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

// decideLoad is how serve loads a policy.
var decideLoad = []rules.Option{rules.WithoutProperties(), rules.CompileOnUse()}

// planShape prints what a plan compiled: its groups, and per rule what
// the engine reads of it.
func planShape(pl *rules.Plan) string {
	var b strings.Builder
	for _, pg := range pl.Groups {
		fmt.Fprintf(&b, "group %s\n", pg.Group.Name)
		for _, cr := range pg.Rules {
			fmt.Fprintf(&b, "  rule %s", cr.Rule.Name)
			if cr.When != nil {
				fmt.Fprintf(&b, " when %q %s parts %d", cr.When.Source, cr.When.Type, len(cr.When.Parts))
			}
			for _, m := range cr.From {
				fmt.Fprintf(&b, " from %s=%b", m.Slot.Name, m.Mask)
			}
			for _, x := range cr.To {
				fmt.Fprintf(&b, " to %s=%v", x.Slot.Name, x.Value)
			}
			for _, a := range cr.Set {
				fmt.Fprintf(&b, " set %s=%q", a.Slot.Name, a.Prog.Source)
			}
			for _, e := range cr.Effects {
				fmt.Fprintf(&b, " effect %s static=%v", e.Name, e.Static)
				for _, a := range e.Args {
					fmt.Fprintf(&b, " %s=%q", a.Name, a.Prog.Source)
				}
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func loadBuiltin(t *testing.T, name string, opts ...rules.Option) *rules.Policy {
	t.Helper()
	p, diags := policies.Load(name, nil, opts...)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// A built-in loaded CompileOnUse leaves every plan's rules to
// CompilePlan, which compiles what a load in full compiles at once.
func TestCompileOnUseIsTheWholeCompile(t *testing.T) {
	for _, name := range policies.Names() {
		full, diags := policies.Load(name, nil, rules.WithoutProperties())
		if len(diags.Diagnostics) != 0 {
			// A warning of a rule's would be lost: a load that compiles
			// on use reports only what it compiled.
			t.Fatalf("%s: loaded in full, it reports %s", name, diags.Error())
		}
		later := loadBuiltin(t, name, decideLoad...)
		if full.CompilesOnUse() || !later.CompilesOnUse() {
			t.Fatalf("%s: CompilesOnUse %v for the load in full, %v for the load to decide with", name, full.CompilesOnUse(), later.CompilesOnUse())
		}
		if len(later.Plans) != len(full.Plans) {
			t.Fatalf("%s: %d plans, want %d", name, len(later.Plans), len(full.Plans))
		}
		rulesSeen := 0
		for i, pl := range later.Plans {
			if pl.Groups != nil {
				t.Fatalf("%s: the %s plan was compiled at load", name, pl.Event.Name)
			}
			if pl.Event != full.Plans[i].Event || len(pl.Facts) != len(full.Plans[i].Facts) {
				t.Fatalf("%s: plan %d is of %s with %d facts, want %s with %d", name, i, pl.Event.Name, len(pl.Facts), full.Plans[i].Event.Name, len(full.Plans[i].Facts))
			}
			if err := later.CompilePlan(i); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, want := planShape(pl), planShape(full.Plans[i])
			if got != want {
				t.Fatalf("%s: the %s plan compiled on use:\n%s\nwant:\n%s", name, pl.Event.Name, got, want)
			}
			for _, pg := range pl.Groups {
				rulesSeen += len(pg.Rules)
			}
		}
		if rulesSeen == 0 {
			t.Fatalf("%s: no plan holds a rule", name)
		}
	}
}

// CompileOnUse is for the tree the build made of a built-in, at its
// defaults, to decide with: any other load compiles every plan when it
// loads, so that a mistake in a file is reported then.
func TestCompileOnUseOnlyForTheBuiltTree(t *testing.T) {
	src, ok := policies.Source("wipe_memory")
	if !ok {
		t.Fatal("no wipe_memory")
	}
	full := loadBuiltin(t, "wipe_memory", rules.WithoutProperties())
	var number string
	for _, x := range full.Params {
		if x.Value.Type().FriendlyName() == "number" {
			number = x.Name
			break
		}
	}
	if number == "" {
		t.Fatal("wipe_memory has no number param")
	}
	edited := append([]byte(nil), src.Bytes...)
	edited = append(edited, "\n# edited\n"...)
	cases := []struct {
		name  string
		src   rules.Source
		opts  []rules.Option
		later bool
	}{
		{"the built tree", src, decideLoad, true},
		{"parsed from its text", rules.Source{Name: src.Name, Bytes: src.Bytes}, decideLoad, false},
		{"a tree of other bytes", rules.Source{Name: src.Name, Bytes: edited, Tree: src.Tree}, decideLoad, false},
		{"a param set, even to its default", src, append([]rules.Option{rules.WithSet(map[string]string{number: "1000"}, "--set")}, decideLoad...), false},
		{"with its properties", src, []rules.Option{rules.CompileOnUse()}, false},
		{"a file that uses it", rules.Source{Name: "p.hcl", Bytes: []byte("use \"wipe_memory\" {}\n")}, append([]rules.Option{rules.WithBuiltins(policies.Source)}, decideLoad...), false},
	}
	for _, c := range cases {
		p, diags := rules.Load(c.src, c.opts...)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", c.name, diags.Error())
		}
		if p.CompilesOnUse() != c.later {
			t.Errorf("%s: CompilesOnUse %v, want %v", c.name, p.CompilesOnUse(), c.later)
		}
		for _, pl := range p.Plans {
			if (pl.Groups == nil) != c.later {
				t.Errorf("%s: the %s plan compiled at load: %v, want %v", c.name, pl.Event.Name, pl.Groups != nil, !c.later)
				break
			}
		}
	}
}

// Plans compiled on use from several goroutines at once are each
// compiled once: twice would list a plan's groups twice.
func TestCompilePlanOnce(t *testing.T) {
	full := loadBuiltin(t, "wipe_memory", rules.WithoutProperties())
	later := loadBuiltin(t, "wipe_memory", decideLoad...)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range later.Plans {
				i := (k + g) % len(later.Plans)
				if err := later.CompilePlan(i); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if err := later.CompilePlans(); err != nil {
		t.Fatal(err)
	}
	for i, pl := range later.Plans {
		if got, want := planShape(pl), planShape(full.Plans[i]); got != want {
			t.Fatalf("the %s plan:\n%s\nwant:\n%s", pl.Event.Name, got, want)
		}
	}
}

// brokenOnUse is testdata/compile_on_use/broken.hcl with its tree, as a
// built-in has one.
func brokenOnUse(t testing.TB) rules.Source {
	t.Helper()
	b, err := os.ReadFile("../testdata/compile_on_use/broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := hcltree.EncodeSource(b, "broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return rules.Source{Name: "broken.hcl", Bytes: b, Tree: tree}
}

func TestCompilePlanErrorIsThePlans(t *testing.T) {
	src := brokenOnUse(t)
	if _, diags := rules.Load(src, rules.WithoutProperties()); !diags.HasErrors() || !strings.Contains(diags.Error(), "broken.hcl:18") {
		t.Fatalf("loaded in full, the mistake is reported at load: %v", diags.Error())
	}
	p, diags := rules.Load(src, decideLoad...)
	if diags.HasErrors() || !p.CompilesOnUse() {
		t.Fatalf("CompileOnUse: %v, %v", p != nil && p.CompilesOnUse(), diags.Error())
	}
	at := func(event string) int {
		for i, pl := range p.Plans {
			if pl.Event.Name == event {
				return i
			}
		}
		t.Fatalf("no %s plan", event)
		return -1
	}
	if err := p.CompilePlan(at("request")); err != nil {
		t.Fatalf("request: %v", err)
	}
	first := p.CompilePlan(at("turn_end"))
	if first == nil || !strings.Contains(first.Error(), "turn_end") || !strings.Contains(first.Error(), "broken.hcl:18") {
		t.Fatalf("turn_end: %v", first)
	}
	if again := p.CompilePlan(at("turn_end")); again == nil || again.Error() != first.Error() {
		t.Fatalf("asked again: %v, want %v", again, first)
	}
	if p.Plans[at("turn_end")].Groups != nil {
		t.Fatal("the failed plan keeps groups")
	}
	if err := p.CompilePlans(); err == nil || err.Error() != first.Error() {
		t.Fatalf("CompilePlans: %v", err)
	}
	for _, i := range []int{-1, len(p.Plans)} {
		if err := p.CompilePlan(i); err == nil || !strings.Contains(err.Error(), "no plan") {
			t.Fatalf("plan %d: %v", i, err)
		}
	}
}

// groupNames lists a policy's groups and, in file order, its rules.
func groupNames(p *rules.Policy) string {
	var b strings.Builder
	for _, g := range p.Groups {
		fmt.Fprintf(&b, "group %s:", g.Name)
		for _, r := range g.Rules {
			fmt.Fprintf(&b, " %s", r.Name)
		}
		b.WriteByte('\n')
	}
	for _, r := range p.Rules {
		fmt.Fprintf(&b, "rule %s of %s on %v\n", r.Name, r.Group.Name, r.On)
	}
	return b.String()
}

// A built-in loaded CompileOnUse leaves its group blocks in the tree:
// initialize, which reads no rule, waits for none. The first plan compiled
// reads them all, the groups and rules a load in full has, in its order.
func TestGroupsAreReadOnUse(t *testing.T) {
	for _, name := range policies.Names() {
		full := loadBuiltin(t, name, rules.WithoutProperties())
		later := loadBuiltin(t, name, decideLoad...)
		if len(later.Groups) != 0 || len(later.Rules) != 0 {
			t.Fatalf("%s: %d groups and %d rules read at load", name, len(later.Groups), len(later.Rules))
		}
		if len(later.Params) != len(full.Params) || len(later.Slots) != len(full.Slots) || len(later.Messages) != len(full.Messages) || len(later.Tools) != len(full.Tools) {
			t.Fatalf("%s: the load to decide with lost what initialize reads", name)
		}
		if err := later.CompilePlan(len(later.Plans) - 1); err != nil {
			t.Fatal(err)
		}
		got, want := groupNames(later), groupNames(full)
		if got != want || len(full.Rules) == 0 {
			t.Fatalf("%s: read on use:\n%s\nwant:\n%s", name, got, want)
		}
		if err := later.CompilePlans(); err != nil || groupNames(later) != want {
			t.Fatalf("%s: read twice: %v\n%s", name, err, groupNames(later))
		}
	}
}

// A mistake in the groups of a tree loaded CompileOnUse, which only the
// reading of the groups meets, is the error of every plan, and the policy
// keeps no half-read group.
func TestGroupMistakeOnUseIsEveryPlans(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"unknown_event.hcl", `unknown_event.hcl:13`},
		{"duplicate_rule.hcl", `duplicate_rule.hcl:18`},
	} {
		b, err := os.ReadFile("../testdata/compile_on_use/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := hcltree.EncodeSource(b, c.file)
		if err != nil {
			t.Fatal(err)
		}
		src := rules.Source{Name: c.file, Bytes: b, Tree: tree}
		if _, diags := rules.Load(src, rules.WithoutProperties()); !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Fatalf("%s loaded in full: %v", c.file, diags.Error())
		}
		p, diags := rules.Load(src, decideLoad...)
		if diags.HasErrors() || !p.CompilesOnUse() {
			t.Fatalf("%s: CompileOnUse: %v", c.file, diags.Error())
		}
		first := p.CompilePlan(0)
		if first == nil || !strings.Contains(first.Error(), c.want) {
			t.Fatalf("%s: %v, want an error at %s", c.file, first, c.want)
		}
		for i := range p.Plans {
			if err := p.CompilePlan(i); err == nil || err.Error() != first.Error() {
				t.Fatalf("%s: plan %d: %v, want %v", c.file, i, err, first)
			}
			if p.Plans[i].Groups != nil {
				t.Fatalf("%s: plan %d has groups", c.file, i)
			}
		}
		if len(p.Groups) != 0 || len(p.Rules) != 0 {
			t.Fatalf("%s: %d groups and %d rules kept", c.file, len(p.Groups), len(p.Rules))
		}
	}
}

// A file that uses a built-in adds its groups to the built-in's, so given
// a tree and loaded to decide with, it is read whole: its own rule is
// there at load, beside the built-in's.
func TestAUseFileWithATreeIsReadWhole(t *testing.T) {
	b := []byte(`use "wipe_memory" {}

group "extra" {
  rule "extra_notice" {
    on = "model_select"
    effect "notify" {
      level = "info"
      text  = "'switched'"
    }
  }
}
`)
	tree, err := hcltree.EncodeSource(b, "p.hcl")
	if err != nil {
		t.Fatal(err)
	}
	p, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: b, Tree: tree}, append([]rules.Option{rules.WithBuiltins(policies.Source)}, decideLoad...)...)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	found := false
	for _, r := range p.Rules {
		found = found || r.Name == "extra_notice"
	}
	if !found || len(p.Rules) < 2 {
		t.Fatalf("the file's own rule is not read at load: %d rules", len(p.Rules))
	}
}
