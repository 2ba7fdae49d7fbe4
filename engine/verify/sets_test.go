package verify_test

import (
	"os"
	"strings"
	"testing"
)

// A set file (testdata/mutants/mutants.txt, testdata/refactors/refactors.txt)
// holds copies of the built-ins, each written as edits to one: blocks
// separated by a line "---", the text before the first one its header.
// A block is "key: value" lines. The edits' "old" and "new" texts, and
// the keys a set names as long, go on over the next lines up to the next
// key; any other key's value is its one line.
type entry struct {
	name   string
	fields map[string]string
	edits  []edit
}

// edit replaces old, which the built-in holds once, by new.
type edit struct{ old, new string }

// readSet reads the set file at path: keys are its one-line keys, long its
// keys whose values go on over several lines.
func readSet(t *testing.T, path string, keys, long []string) []entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	one, many := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		one[k] = true
	}
	for _, k := range long {
		many[k] = true
	}
	var out []entry
	for _, block := range strings.Split(string(b), "\n---\n")[1:] {
		e := entry{fields: map[string]string{}}
		var field *string
		var longKey, longVal string
		flush := func() {
			if longKey != "" {
				e.fields[longKey] = longVal
				longKey = ""
			}
		}
		for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
			key, val, ok := strings.Cut(line, ": ")
			if ok {
				switch {
				case key == "name":
					flush()
					e.name, field = val, nil
					continue
				case one[key]:
					flush()
					e.fields[key], field = val, nil
					continue
				case many[key]:
					flush()
					longKey, longVal = key, val
					field = &longVal
					continue
				case key == "old":
					flush()
					e.edits = append(e.edits, edit{old: val})
					field = &e.edits[len(e.edits)-1].old
					continue
				case key == "new":
					flush()
					if len(e.edits) == 0 {
						t.Fatalf("%s: %q: new before old", path, e.name)
					}
					e.edits[len(e.edits)-1].new = val
					field = &e.edits[len(e.edits)-1].new
					continue
				}
			}
			if field == nil {
				t.Fatalf("%s: %q: stray line %q", path, e.name, line)
			}
			*field += "\n" + line
		}
		flush()
		out = append(out, e)
	}
	return out
}

// applyEdits makes the edits to the text of built-in policy; each old text
// must be in it once.
func applyEdits(t *testing.T, policy, text string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if n := strings.Count(text, e.old); n != 1 {
			t.Fatalf("the text to edit is in %s.hcl %d times, want once; update the entry:\n%s", policy, n, e.old)
		}
		text = strings.Replace(text, e.old, e.new, 1)
	}
	return text
}
