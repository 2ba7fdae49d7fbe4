package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/policies"
)

// TestBuiltinCacheEntryNotAFile: whatever sits where a built-in's source
// is written — a FIFO, a link to /dev/zero or to a copy of the source, a
// file of another size or text, a directory — is not read past the
// source's size and never waited on: the definition is answered and the
// entry is a regular file holding the source afterwards.
func TestBuiltinCacheEntryNotAFile(t *testing.T) {
	src, _ := policies.Source("wipe_memory")
	uri, text := readFixture(t, "composed.hcl")
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}},
		{"link to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}},
		{"link to a copy", func(t *testing.T, path string) {
			copyPath := filepath.Join(t.TempDir(), "copy.hcl")
			if err := os.WriteFile(copyPath, src.Bytes, 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(copyPath, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"longer file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, src.Bytes, 0o644); err != nil {
				t.Fatal(err)
			}
			// 256 MiB, sparse: reading it whole would show in the
			// memory allocated.
			if err := os.Truncate(path, 256<<20); err != nil {
				t.Fatal(err)
			}
		}},
		{"other text", func(t *testing.T, path string) {
			b := append([]byte{}, src.Bytes...)
			b[0] ^= 1
			if err := os.WriteFile(path, b, 0o444); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			sum := sha256.Sum256(src.Bytes)
			dir := filepath.Join(cache, "resetpolicy", "builtin", hex.EncodeToString(sum[:6]))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "wipe_memory.hcl")
			tc.make(t, path)
			c := newClient(t, Options{CacheDir: cache})
			c.open(uri, text)
			var locs []protocol.Location
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c.call("textDocument/definition", docPos(uri, 3, 6), &locs)
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("the definition allocated %d bytes: the entry was read past the source's size", n)
			}
			if len(locs) != 1 || nameOf(locs[0].URI) != path {
				t.Fatalf("definition %v, want %s", locs, path)
			}
			st, err := os.Lstat(path)
			if err != nil || !st.Mode().IsRegular() {
				t.Fatalf("%s after the definition: %v %v, want a regular file", path, st, err)
			}
			if b, _ := os.ReadFile(path); string(b) != string(src.Bytes) {
				t.Error("the entry does not hold the built-in's source")
			}
		})
	}
}

// TestHoldsComparesText: only the same bytes count as the source.
func TestHoldsComparesText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !holds(path, []byte("abc")) || holds(path, []byte("abd")) || holds(path, []byte("ab")) {
		t.Error("holds does not compare the text")
	}
}
