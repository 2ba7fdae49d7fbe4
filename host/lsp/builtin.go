package lsp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/resetpolicy/resetpolicy/policies"
)

// builtinFile returns a file URI holding a built-in's embedded source, for
// a definition that lands in it. The file is written on first use, under
// the cache directory, in a directory named by the source's hash (so two
// versions of the binary never show each other's text), read-only (0444:
// editors open it as such, and an edit there would change nothing).
// Nothing is written before a definition asks for it.
func (s *Server) builtinFile(name string, write bool) (uri string, src []byte, err error) {
	source, ok := policies.Source(name)
	if !ok {
		return "", nil, fmt.Errorf("no built-in policy %q", name)
	}
	s.builtinMu.Lock()
	defer s.builtinMu.Unlock()
	if uri, ok := s.builtinURIs[name]; ok {
		return uri, source.Bytes, nil
	}
	if !write {
		return "", nil, fmt.Errorf("built-in %q is not written yet", name)
	}
	dir := s.opts.CacheDir
	if dir == "" {
		if dir, err = os.UserCacheDir(); err != nil {
			return "", nil, err
		}
	}
	sum := sha256.Sum256(source.Bytes)
	dir = filepath.Join(dir, "resetpolicy", "builtin", hex.EncodeToString(sum[:6]))
	path := filepath.Join(dir, name+".hcl")
	if !holds(path, source.Bytes) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, err
		}
		tmp, err := os.CreateTemp(dir, name+".*.tmp")
		if err != nil {
			return "", nil, err
		}
		_, werr := tmp.Write(source.Bytes)
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			werr = os.Chmod(tmp.Name(), 0o444)
		}
		if werr == nil && cerr == nil {
			// A read-only file left by an older, torn write is replaced.
			_ = os.Remove(path)
			werr = os.Rename(tmp.Name(), path)
		}
		if werr != nil || cerr != nil {
			_ = os.Remove(tmp.Name())
			return "", nil, fmt.Errorf("writing %s: %v", path, errorsJoin(werr, cerr))
		}
	}
	uri = fileURI(path)
	if s.builtinURIs == nil {
		s.builtinURIs = map[string]string{}
	}
	s.builtinURIs[name] = uri
	return uri, source.Bytes, nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// holds says whether path is a regular file whose bytes are want. Anything
// else found there — a FIFO (opening it would wait for a writer), a
// symbolic link (to /dev/zero, which never ends), a device, a directory,
// a file of another size — is not read past len(want)+1 bytes, and the
// caller writes the file anew.
func holds(path string, want []byte) bool {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(want)) {
		return false
	}
	// The entry may change between Lstat and open: O_NOFOLLOW refuses a
	// link, O_NONBLOCK keeps a FIFO from waiting, fstat is what counts.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	have, err := io.ReadAll(io.LimitReader(f, int64(len(want))+1))
	return err == nil && bytes.Equal(have, want)
}
