package jsonscan

import (
	"syscall"
	"testing"
)

// TestReadsStayInTheText: the scans that read words in place (keys,
// strings, 64-byte blocks, At's keys) read nothing past the text's end. Each text
// is placed to end where a page the process may not read begins, so a
// read past it faults.
func TestReadsStayInTheText(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("no anonymous mapping:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("no protection:", err)
	}
	for _, text := range []string{
		`{"id":1}`, `{"ab":12}`, `{"type":1}`, `{"type":"m"}`, `{"ab":12345678901}`, `{"ab":1234567890}`, `{"timestamp":1234}`, `{"parentId":"x"}`, `{"timestamp":2}`, `{"cacheWriteTokens":3}`,
		`{"a":"` + string(make([]byte, 100)) + `"}`, `{"k":"é` + `\n` + `"}`,
	} {
		b := mem[page-len(text) : page : page]
		copy(b, text)
		for i := range b {
			if b[i] == 0 {
				b[i] = 'z'
			}
		}
		var d Doc
		v, err := d.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		// At reads a key's sixteen bytes in place where the text holds
		// them: `{"ab":12345678901}` ends right at them, `{"ab":1234567890}`
		// one byte before.
		for _, name := range []string{"id", "type", "k", "a", "ab", "timestamp"} {
			if got, want := v.At(NewKey(name)), v.Get(name); got != want {
				t.Errorf("%s: At(%q) found %v, Get %v", b, name, got, want)
			}
		}
	}
	// Texts that end inside a key or a string, at every length near a
	// word's: the scans stop at the end, and report it.
	for n := 1; n < 140; n++ {
		for _, open := range []string{`{"`, `{"k":"`, `["`} {
			b := mem[page-len(open)-n : page : page]
			copy(b, open)
			for i := len(open); i < len(b); i++ {
				b[i] = 'k'
			}
			var d Doc
			if _, err := d.Parse(b); err == nil {
				t.Fatalf("%s: no error", b)
			}
		}
	}
}
