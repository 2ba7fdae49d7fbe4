package replay

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// Compactions naming a first kept entry that is not on the branch cost a
// bounded walk per session (maxKeptScan entries stepped over in all), not
// a walk to the root at every compaction: 20,000 such compactions after
// 20,000 prompts would step over 6e8 entries.
func TestKeptScanBounded(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s"}` + "\n")
	prev := "null"
	for i := 0; i < 40000; i++ {
		id := fmt.Sprintf("e%d", i)
		if i < 20000 {
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"message":{"role":"user","content":"x"}}`+"\n", id, prev)
		} else {
			fmt.Fprintf(&b, `{"type":"compaction","id":"%s","parentId":%s,"summary":"s","firstKeptEntryId":"nowhere","tokensBefore":1}`+"\n", id, prev)
		}
		prev = `"` + id + `"`
	}
	f, err := sessionfile.NewReader(sessionfile.Options{}).Read(&b, "k")
	if err != nil {
		t.Fatal(err)
	}
	path, err := f.Branch("")
	if err != nil || len(path) != 40000 {
		t.Fatalf("branch of %d: %v", len(path), err)
	}
	var c piContext
	for i := 20000; i < len(path); i++ {
		c.compact(path, i)
	}
	if c.scanned == 0 || c.scanned > maxKeptScan {
		t.Fatalf("stepped over %d entries, bound %d", c.scanned, maxKeptScan)
	}
}
