package verify_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// seedTable is one table of docs/verify.md's "Which seed sentence each
// property states": the built-in it is for, and the property names its
// rows cite, by line of the doc.
type seedTable struct {
	policy string
	cited  map[string][]int
}

var (
	seedHeading = regexp.MustCompile("^#### Seed [0-9]+: ([a-z_]+)$")
	codeSpan    = regexp.MustCompile("`([^`]+)`")
)

// readSeedTables reads the tables: under each "#### Seed NNN: POLICY"
// heading, every code span of a row's last cell is a property name.
func readSeedTables(t *testing.T, doc string) []seedTable {
	t.Helper()
	var out []seedTable
	var cur *seedTable
	for i, line := range strings.Split(doc, "\n") {
		if m := seedHeading.FindStringSubmatch(line); m != nil {
			out = append(out, seedTable{policy: m[1], cited: map[string][]int{}})
			cur = &out[len(out)-1]
			continue
		}
		if strings.HasPrefix(line, "#") {
			cur = nil
			continue
		}
		if cur == nil || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "| line ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Fatalf("docs/verify.md:%d: a row of %s's table has %d cells, want 3 (line, sentence, property)", i+1, cur.policy, len(cells))
		}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			cur.cited[m[1]] = append(cur.cited[m[1]], i+1)
		}
	}
	return out
}

// TestSeedTablesCiteDeclaredProperties keeps the seed tables of
// docs/verify.md true to the built-ins: each property a row names is
// declared by that built-in, and each property the built-in declares is
// named by some row, so a property renamed, removed or added without its
// row fails here instead of leaving the table wrong.
func TestSeedTablesCiteDeclaredProperties(t *testing.T) {
	b, err := os.ReadFile("../../docs/verify.md")
	if err != nil {
		t.Fatal(err)
	}
	tables := readSeedTables(t, string(b))
	seen := map[string]bool{}
	for _, tb := range tables {
		seen[tb.policy] = true
		declared := map[string]bool{}
		for _, pr := range load(t, tb.policy).Properties {
			declared[pr.Name] = true
			if len(tb.cited[pr.Name]) == 0 {
				t.Errorf("docs/verify.md: %s declares %q, which no row of its seed table names", tb.policy, pr.Name)
			}
		}
		for name, lines := range tb.cited {
			if !declared[name] {
				t.Errorf("docs/verify.md:%d: %s declares no property %q", lines[0], tb.policy, name)
			}
		}
	}
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		if !seen[name] {
			t.Errorf("docs/verify.md has no seed table for %s", name)
		}
	}
}
