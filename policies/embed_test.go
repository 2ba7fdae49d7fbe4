package policies

import (
	"bytes"
	"testing"
)

// TestEmbeddedBytesAreTheFiles: each built-in's text and tree, embedded
// as byte slices for Source, are the files themselves, and every
// built-in has them (a policy added to the directory needs its two
// lines in builtins).
func TestEmbeddedBytesAreTheFiles(t *testing.T) {
	names := Names()
	if len(names) != len(builtins) {
		t.Errorf("%d built-ins, %d embedded as bytes", len(names), len(builtins))
	}
	for _, name := range names {
		b, ok := builtins[name]
		if !ok {
			t.Errorf("%s: not embedded as bytes", name)
			continue
		}
		for _, f := range []struct {
			file string
			got  []byte
		}{{name + ".hcl", b.hcl}, {name + ".hcl.tree", b.tree}} {
			want, err := files.ReadFile(f.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.got, want) {
				t.Errorf("%s: the embedded bytes are not the file's", f.file)
			}
		}
		// The binary's own bytes, which nothing writes: a load's tree may
		// point into them.
		if src, _ := Source(name); !src.Static || &src.Bytes[0] != &b.hcl[0] || &src.Tree[0] != &b.tree[0] {
			t.Errorf("%s: the source is not the embedded bytes, marked static", name)
		}
	}
}
