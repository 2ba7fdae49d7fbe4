package sessionfile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// FuzzRead feeds the reader arbitrary files, seeded with the recorded
// sessions and their conversions cut into small pieces: it never panics,
// never reports a problem beyond the lines it read, and every branch it
// returns starts at a root and ends at the leaf asked for.
//
//	go test ./host/sessionfile -run XXX -fuzz FuzzRead -fuzztime 60s
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := bytes.Split(b, []byte("\n"))
		for i := 0; i+3 <= len(lines); i += 7 {
			seed := bytes.Join(append([][]byte{lines[0]}, lines[i:i+3]...), []byte("\n"))
			if len(seed) < 8<<10 {
				f.Add(seed)
			}
		}
	}
	f.Add([]byte(`{"type":"session","id":"x"}{"type":"compaction","firstKeptEntryIndex":1}` + "\n" + `{"type":"message"}`))
	f.Add([]byte(`{"type":"session","version":2,"id":"x"}` + "\n" + `{"type":"message","id":"a","parentId":"a","message":{"role":"hookMessage"}}`))
	// A cut object before the next entry, nested blocks that look like
	// entries, absurd token counts.
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"message","id":"a","message":{"content":[{"type":"text","text":"h"}],"t{"type":"compaction","id":"c","parentId":"a"}{"type":"message","id":"b","parentId":"c"}`))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":1e999,"output":-1,"totalTokens":NaN}}}`))
	// The lines JSON.parse, and so Pi, reads otherwise than the bytes seem
	// to say: a key written twice (escaped too), numbers and literals JSON
	// does not write, raw control characters, unknown and short escapes,
	// invalid UTF-8 of every kind, two values on a line, byte order marks.
	head := `{"type":"session","version":3,"id":"x"}` + "\n"
	for _, line := range []string{
		`{"type":"message","id":"a","message":{"role":"assistant","usage":{"totalTokens":190000,"totalTokens":181120}}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","usage":{"totalTokens":1,"t\u006ftalTokens":2}}}`,
		`{"type":"message","id":"a","type":"compaction","message":{"role":"user","role":"assistant","usage":{},"usage":{"input":5}}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":01,"output":1000.,"cacheRead":NaN}}}`,
		"{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"a\x01b\tc\x00\"}}",
		`{"type":"message","id":"a","message":{"role":"user","content":"\q \u12"}}`,
		"{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"\x80\x80\xc0\x80\xe2\x82 \xed\xa0\x80\xf4\x90\x80\x80\xff\xf0\x9f\x98\"}}",
		`{"type":"message","id":"a"}{"type":"message","id":"b","parentId":"a"}`,
		"\ufeff{\"type\":\"message\",\"id\":\"a\"}",
		"\ufeff",
	} {
		f.Add([]byte(head + line + "\n"))
	}
	f.Add([]byte("\ufeff" + head))
	rd := sessionfile.NewReader(sessionfile.Options{MaxLine: 4096, MaxEntries: 64})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := rd.Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for _, p := range file.Problems {
			if p.Line < 1 || p.Line > file.Lines {
				t.Fatalf("problem at line %d of %d", p.Line, file.Lines)
			}
		}
		if file.Len() > 64 {
			t.Fatalf("%d entries over the bound", file.Len())
		}
		for k := 0; k < file.Len(); k++ {
			e := file.At(k)
			if e.ID == "" {
				// An entry without an id is no leaf Pi can name.
				continue
			}
			path, err := file.Branch(e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(path) == 0 || len(path) > file.Len() {
				t.Fatalf("branch of %d entries", len(path))
			}
			if path[len(path)-1].ID != e.ID {
				t.Fatalf("branch ends at %q, not %q", path[len(path)-1].ID, e.ID)
			}
		}
	})
}
