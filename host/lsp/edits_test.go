package lsp

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// randomEdits are n edits of text at random places, some past a line's
// end or the text's, each typing one of the fuzz snippets.
func randomEdits(r *rand.Rand, text string, n int) ([]any, string) {
	lines := strings.Count(text, "\n") + 1
	var changes []any
	model := text
	pos := func() protocol.Position {
		char := r.IntN(60)
		if r.IntN(4) == 0 {
			char = r.IntN(40000) // far into a long line, across pieces
		}
		return protocol.Position{Line: protocol.UInteger(r.IntN(lines + 2)), Character: protocol.UInteger(char)}
	}
	for i := 0; i < n; i++ {
		rng := protocol.Range{Start: pos(), End: pos()}
		if r.IntN(3) > 0 {
			rng.End = rng.Start // most edits type at a cursor
		}
		s := snippets[r.IntN(len(snippets))]
		changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: &rng, Text: s})
		model = refApply(model, rng, s)
		lines = strings.Count(model, "\n") + 1
	}
	return changes, model
}

// TestBatchEditsMatchOneByOne: a change of many edits leaves the text the
// edits applied one by one leave, on texts of many pieces with CRLF line
// ends, characters outside the BMP, and lines longer than a piece.
func TestBatchEditsMatchOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, text := range []string{
		strings.Repeat("slot \"s\" {\r\n  values = [\"😀\", \"é\"]\r\n}\r\n", 2000),
		strings.Repeat("x😀é\r", 9000) + "\n" + strings.Repeat("ab\n", 5000),
		strings.Repeat("\n", 30000),
		strings.Repeat("abc\r\n", 20000), // piece cuts fall between \r and \n
		strings.Repeat("é😀\r", 12000),
		"",
	} {
		for round := 0; round < 4; round++ {
			changes, want := randomEdits(r, text, 400)
			d := &document{}
			d.setText([]byte(text))
			d.applyChanges(changes)
			if got := string(d.src()); got != want {
				t.Fatalf("text of %d bytes: the batch gives %d bytes, one by one %d", len(text), len(got), len(want))
			}
		}
	}
	// A piece that ends in the \r of a \r\n: the line ends before it.
	d := &document{}
	d.setText([]byte(strings.Repeat("x", pieceBytes-1) + "\r\ny"))
	at := func(l, c int, s string) any {
		rng := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l), Character: protocol.UInteger(c)}}
		rng.End = rng.Start
		return protocol.TextDocumentContentChangeEvent{Range: &rng, Text: s}
	}
	d.applyChanges([]any{at(1, 1, "!"), at(0, 99999, "Z")})
	if got := string(d.src()); got != strings.Repeat("x", pieceBytes-1)+"Z\r\ny!" {
		t.Errorf("past the end of a line cut before its \\n: %q", got[len(got)-8:])
	}
	// Whole texts and edits mixed in one change.
	d = &document{}
	d.setText([]byte("abc\n"))
	d.applyChanges([]any{at(0, 1, "X"), protocol.TextDocumentContentChangeEventWhole{Text: "new\n"}, at(1, 0, "Y"), at(0, 0, "Z")})
	if got := string(d.src()); got != "Znew\nY" {
		t.Errorf("mixed change: %q", got)
	}
}

// TestBatchEditsOnePass: 2,000 one-character edits in one change of a
// 4 MiB text allocate a few copies of the text and a few pieces per
// edit, not a copy of the text per edit (10,000 such edits blocked the
// server for 40 s). Bytes allocated do not depend on the machine's load.
func TestBatchEditsOnePass(t *testing.T) {
	line := strings.Repeat("x", 63) + "\n"
	text := strings.Repeat(line, maxDocBytes/2/len(line)) // 4 MiB
	r := rand.New(rand.NewPCG(3, 4))
	lines := strings.Count(text, "\n")
	const n = 2000
	changes := make([]any, n)
	for i := range changes {
		p := protocol.Position{Line: protocol.UInteger(r.IntN(lines)), Character: protocol.UInteger(r.IntN(64))}
		changes[i] = protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: p, End: p}, Text: "y"}
	}
	d := &document{}
	d.setText([]byte(text))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d.applyChanges(changes)
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	bound := uint64(4*len(text) + n*4*pieceBytes)
	t.Logf("%d edits of a %d-byte text allocated %d bytes (bound %d)", n, len(text), got, bound)
	if got > bound {
		t.Errorf("%d edits allocated %d bytes, over %d: the text is copied per edit", n, got, bound)
	}
	if len(d.src()) != len(text)+n {
		t.Errorf("text of %d bytes, want %d", len(d.src()), len(text)+n)
	}
}
