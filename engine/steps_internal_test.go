package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules"
)

// tablePolicy has slots enum slots of four values (and one of two when
// odd), and one tool rule per name, each reading every slot.
func tablePolicy(slots int, odd bool, names int) string {
	var b strings.Builder
	b.WriteString("policy \"table\" {}\n")
	var from []string
	for i := 0; i < slots; i++ {
		fmt.Fprintf(&b, "slot \"s%d\" {\n  values = [\"a\", \"b\", \"c\", \"d\"]\n}\n", i)
		from = append(from, fmt.Sprintf("s%d = \"a\"", i))
	}
	if odd {
		b.WriteString("slot \"odd\" {\n  values = [\"a\", \"b\"]\n}\n")
		from = append(from, "odd = \"a\"")
	}
	b.WriteString("group \"g\" {\n")
	for i := 0; i < names; i++ {
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on   = \"tool\"\n    from = { %s }\n    when = \"event.name == 'n%d'\"\n  }\n", i, strings.Join(from, ", "), i)
	}
	b.WriteString("}\n")
	return b.String()
}

// A plan is tabulated up to maxStateTable state keys and maxTableCells
// keys times buckets, both bounds included, and not past them.
func TestStateTableBounds(t *testing.T) {
	if maxStateTable != 4096 || maxTableCells != 4096*4 {
		t.Fatalf("the cases below are made for bounds of 4096 keys and 16384 cells")
	}
	cases := []struct {
		name       string
		slots      int
		odd        bool
		names      int
		want       bool
		keys, rows int
	}{
		{"4096 keys, one bucket", 6, false, 1, true, 4096, 1},
		{"4096 keys, 4 buckets: the cell bound", 6, false, 3, true, 4096, 4},
		{"4096 keys, 5 buckets", 6, false, 4, false, 0, 0},
		{"8192 keys", 6, true, 1, false, 0, 0},
		{"2048 keys, 8 buckets", 5, true, 7, true, 2048, 8},
	}
	for _, c := range cases {
		p, diags := rules.Load(rules.Source{Name: "table.hcl", Bytes: []byte(tablePolicy(c.slots, c.odd, c.names))})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		e := New(p)
		var pl *plan
		for k := range e.plans {
			if len(e.plans[k].groups) > 0 {
				pl = &e.plans[k]
			}
		}
		if got := pl.table != nil; got != c.want {
			t.Errorf("%s: tabulated %v, want %v", c.name, got, c.want)
			continue
		}
		if !c.want {
			continue
		}
		if len(pl.table) != c.keys || len(pl.groups[0].buckets) != c.rows {
			t.Errorf("%s: %d keys and %d buckets, want %d and %d", c.name, len(pl.table), len(pl.groups[0].buckets), c.keys, c.rows)
		}
		// Only the key of every slot at "a" has candidates.
		for key, steps := range pl.table {
			if (len(steps) > 0) != (key == 0) {
				t.Fatalf("%s: key %d has %d steps", c.name, key, len(steps))
			}
		}
	}
}
