package engine

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Building an engine costs a small multiple of its rules, whatever the
// shape of the policy: these tests build the shapes whose indexes grew
// with the rules times the state keys, or times the dispatched values,
// and bound what engine.New allocates.

// Per rule and in all, what engine.New may allocate (22 MB and 80,134
// allocations measured for 40,000 rules; 3.8 GB for the state indexes
// alone before the build budget).
const (
	maxBuildBytesPerRule  = 1024
	maxBuildAllocsPerRule = 4
	maxBuildFixed         = 1 << 20
)

// keyedPolicy has slots two-valued enum slots and n rules on request in
// one group, rule i reading slot i%slots: 40,000 rules over 12 slots is a
// 2.6 MB file, within the loader's bounds.
func keyedPolicy(slots, n int) string {
	var b strings.Builder
	b.WriteString("policy \"keyed\" {}\n")
	for i := 0; i < slots; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\"]\n}\n", i)
	}
	b.WriteString("group \"g\" {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"request\"\n    from = { s%d = \"a\" }\n  }\n", i, i%slots)
	}
	b.WriteString("}\n")
	return b.String()
}

// toolsPolicy has n tool rules of distinct names and n rules that test
// no name, which every dispatched bucket would hold; the shared rules
// need slot s at "b", so in the initial state the named rule fires.
func toolsPolicy(n int) string {
	var b strings.Builder
	b.WriteString("policy \"tools\" {}\nslot \"s\" {\n  values = [\"a\", \"b\"]\n}\ngroup \"g\" {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  rule \"shared%d\" {\n    on = \"tool\"\n    from = { s = \"b\" }\n  }\n", i)
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"tool\"\n    when = \"event.name == 'n%d'\"\n  }\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

func loadSource(t *testing.T, name, src string) *rules.Policy {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: name, Bytes: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// buildCost is what engine.New allocates for p.
func buildCost(p *rules.Policy) (e *Engine, bytes, allocs uint64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	e = New(p)
	runtime.ReadMemStats(&m1)
	return e, m1.TotalAlloc - m0.TotalAlloc, m1.Mallocs - m0.Mallocs
}

func checkBuildCost(t *testing.T, name string, rulesN int, bytes, allocs uint64) {
	t.Helper()
	t.Logf("%s: %d rules, engine.New allocated %d bytes in %d allocations", name, rulesN, bytes, allocs)
	if max := uint64(maxBuildBytesPerRule*rulesN + maxBuildFixed); bytes > max {
		t.Errorf("%s: engine.New allocated %d bytes for %d rules, over %d", name, bytes, rulesN, max)
	}
	if max := uint64(maxBuildAllocsPerRule*rulesN + maxBuildFixed/64); allocs > max {
		t.Errorf("%s: engine.New made %d allocations for %d rules, over %d", name, allocs, rulesN, max)
	}
}

func decideRequest(t *testing.T, s *Session, state map[string]any, kind string) []string {
	t.Helper()
	s.Reset()
	if err := s.SetState(state); err != nil {
		t.Fatal(err)
	}
	ev, err := ParseEvent([]byte(kind))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Decide(ev)
	if err != nil {
		t.Fatal(err)
	}
	return d.Rules
}

func TestBuildCostOfManyKeyedRules(t *testing.T) {
	const slots, n = 12, 40_000
	src := keyedPolicy(slots, n)
	if len(src) < 2_000_000 || len(src) > rules.MaxFileBytes {
		t.Fatalf("the policy is %d bytes; the case is a 2 MB file within the loader's bound", len(src))
	}
	e, bytes, allocs := buildCost(loadSource(t, "keyed.hcl", src))
	checkBuildCost(t, "12 slots, 40,000 keyed rules", n, bytes, allocs)
	// Unindexed, the first rule in file order whose from matches fires:
	// with s0…s(k-1) at "b" and sk at "a", rule rk.
	s := e.NewSession()
	for k := 0; k < slots; k++ {
		state := map[string]any{}
		for i := 0; i < slots; i++ {
			state[fmt.Sprintf("s%d", i)] = map[bool]string{true: "b", false: "a"}[i < k]
		}
		if got := decideRequest(t, s, state, `{"event":"request"}`); len(got) != 1 || got[0] != fmt.Sprintf("r%d", k) {
			t.Errorf("slots before s%d at b: fired %v, want [r%d]", k, got, k)
		}
	}
	all := map[string]any{}
	for i := 0; i < slots; i++ {
		all[fmt.Sprintf("s%d", i)] = "b"
	}
	if got := decideRequest(t, s, all, `{"event":"request"}`); len(got) != 0 {
		t.Errorf("every slot at b: fired %v, want none", got)
	}
}

func TestBuildCostOfManyToolsAndSharedRules(t *testing.T) {
	const n = 10_000
	e, bytes, allocs := buildCost(loadSource(t, "tools.hcl", toolsPolicy(n)))
	checkBuildCost(t, "10,000 tool rules and 10,000 shared", 2*n, bytes, allocs)
	s := e.NewSession()
	for _, i := range []int{0, 1, n / 2, n - 1} {
		ev := fmt.Sprintf(`{"event":"tool","name":"n%d"}`, i)
		if got := decideRequest(t, s, nil, ev); len(got) != 1 || got[0] != fmt.Sprintf("r%d", i) {
			t.Errorf("tool n%d: fired %v, want [r%d]", i, got, i)
		}
		if got := decideRequest(t, s, map[string]any{"s": "b"}, ev); len(got) != 1 || got[0] != "shared0" {
			t.Errorf("tool n%d, s at b: fired %v, want [shared0]", i, got)
		}
	}
}

// The built-ins are far inside the budget: every plan keeps its state
// table, every bucket its state index, and the build spends at most a
// tenth of the budget.
func TestBuiltinsKeepTheirIndexes(t *testing.T) {
	if maxBuildPerRule != 16 || maxBuildBase != 1<<16 {
		t.Fatalf("docs/limits.md gives the build budget as 16 entries a rule plus 65,536")
	}
	for _, name := range policies.Names() {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		e := New(p)
		for k := range e.plans {
			pl := &e.plans[k]
			if len(pl.groups) == 0 {
				continue
			}
			where := name + " " + p.Plans[k].Event.Name
			if pl.table == nil {
				t.Errorf("%s: no state table", where)
			}
			n := 0
			for gi := range pl.groups {
				n += len(pl.groups[gi].rules)
			}
			full := newBuildBudget(n).left
			used := pl.spent
			pl.eachBucket(func(b *bucket) {
				if b.unindexed {
					t.Errorf("%s: a bucket without its state index", where)
				}
			})
			if used > full/10 {
				t.Errorf("%s: the indexes hold %d entries, over a tenth of the budget of %d", where, used, full)
			}
		}
	}
}

// A bucket's state index lists, for every key, the rules whose from
// matches, in file order, as checking each rule would: checked on a
// policy of slots of three values and rules that read one, two or none.
func TestStateIndexMatchesFromChecks(t *testing.T) {
	var b strings.Builder
	b.WriteString("policy \"mix\" {}\n")
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\", \"c\"]\n}\n", i)
	}
	b.WriteString("group \"g\" {\n")
	froms := []string{`{ s0 = "a" }`, `{ s1 = ["b", "c"] }`, `{ s0 = "c", s2 = ["a", "b"] }`, ``, `{ s2 = "c" }`, `{ s0 = ["a", "b"], s1 = "a" }`}
	for i, f := range froms {
		from := ""
		if f != "" {
			from = "    from = " + f + "\n"
		}
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"request\"\n%s  }\n", i, from)
	}
	b.WriteString("}\n")
	e := New(loadSource(t, "mix.hcl", b.String()))
	pl := &e.plans[kinds["request"]]
	bk := &pl.groups[0].buckets[0]
	if bk.byState == nil {
		t.Fatal("no state index")
	}
	s := e.NewSession()
	vals := []string{"a", "b", "c"}
	for key := 0; key < 27; key++ {
		state := map[string]any{"s0": vals[key%3], "s1": vals[key/3%3], "s2": vals[key/9]}
		if err := s.SetState(state); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range bk.rules {
			if s.from(r) {
				want = append(want, r.name)
			}
		}
		k := int(s.state[bk.key0].Num)
		for _, sk := range bk.keys {
			k += int(s.state[sk.slot].Num) * sk.stride
		}
		var got []string
		for _, r := range bk.byState[k] {
			got = append(got, r.name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("state %v: index lists %v, from checks give %v", state, got, want)
		}
	}
}
