package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// snippets are what a fuzzed edit types: pieces of the policy language
// and of broken syntax.
var snippets = []string{"", "\"", "{", "}", "[", "]", "\n", "event.", "state.", "param.", "message.",
	"rule \"r\" {\n", "on = \"turn_end\"\n", "when = \"", "effect \"", "use \"wipe_memory\" {}\n",
	"from = { request = \"", "😀", "é", "\r\n", "${", "<<EOT\n", "EOT\n", "override \"", "=", "#"}

// refApply is an independent model of an incremental change: the text as
// UTF-16 code units per line, a position past a line's end (or inside a
// surrogate pair) moving to the end of the line (after the pair).
func refApply(text string, r protocol.Range, s string) string {
	off := func(p protocol.Position) int {
		line, i := 0, 0
		for i < len(text) && line < int(p.Line) {
			if text[i] == '\n' {
				line++
			}
			i++
		}
		if line < int(p.Line) {
			return len(text)
		}
		for units := 0; i < len(text) && text[i] != '\n' && units < int(p.Character); {
			if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				break
			}
			r, w := utf8.DecodeRuneInString(text[i:])
			units += len(utf16.Encode([]rune{r}))
			i += w
		}
		return i
	}
	a, b := off(r.Start), off(r.End)
	if b < a {
		a, b = b, a
	}
	return text[:a] + s + text[b:]
}

// FuzzEdits opens a document and applies random incremental edits, asking
// for completion, hover, definition, references, symbols, formatting and
// diagnostics after each: no handler may panic, and the server's text
// must follow the edits as the model above applies them.
func FuzzEdits(f *testing.F) {
	for _, name := range []string{"policy.hcl", "composed.hcl", "tiny.test.hcl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), []byte{3, 5, 3, 9, 7, 40, 2, 40, 2, 1, 0, 0, 99, 99, 17})
	}
	f.Add("", []byte{0, 0, 0, 0, 11, 1, 2, 1, 2, 12, 2, 4, 2, 4, 5})
	f.Fuzz(fuzzBody(f))
}

func fuzzBody(tb testing.TB) func(t *testing.T, text string, script []byte) {
	// No check runs on its own (the debounce outlasts the fuzzing): the
	// target checks once per input, bare, so that a run costs
	// milliseconds and a panic in the check is the fuzzer's to see.
	s := New(Options{Debounce: time.Hour, CacheDir: tb.TempDir()})
	ctx := &glsp.Context{}
	return func(t *testing.T, text string, script []byte) {
		if !utf8.ValidString(text) || len(text) > 1<<16 || len(script) > 200 {
			return // the protocol carries valid UTF-8 JSON strings
		}
		uri := "file:///fuzz/p.hcl"
		if len(script) > 0 && script[0]%3 == 1 {
			uri = "file:///fuzz/p.test.hcl"
		}
		s.mu.Lock()
		s.docs = map[string]*document{}
		s.byName = map[string]*document{}
		s.mu.Unlock()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Text: text, Version: 1}}))
		model := text
		id := protocol.TextDocumentIdentifier{URI: uri}
		var batch []any // the same edits, sent at the end as one change
		for i := 0; i+5 <= len(script); i += 5 {
			e := script[i : i+5]
			r := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(e[0] % 64), Character: protocol.UInteger(e[1] % 48)},
				End: protocol.Position{Line: protocol.UInteger(e[2] % 64), Character: protocol.UInteger(e[3] % 48)}}
			snip := snippets[int(e[4])%len(snippets)]
			must(s.didChange(ctx, &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: id, Version: protocol.Integer(i + 2)},
				ContentChanges: []any{protocol.TextDocumentContentChangeEvent{Range: &r, Text: snip}}}))
			model = refApply(model, r, snip)
			batch = append(batch, protocol.TextDocumentContentChangeEvent{Range: &r, Text: snip})
			s.mu.Lock()
			got := string(s.docs[uri].src())
			s.mu.Unlock()
			if got != model {
				t.Fatalf("after edit %d (%v %q): text %q, want %q", i/5, r, snip, got, model)
			}
			pos := protocol.TextDocumentPositionParams{TextDocument: id, Position: r.Start}
			_, err := s.completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: pos})
			must(err)
			_, err = s.hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: pos})
			must(err)
			_, err = s.definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: pos})
			must(err)
			_, err = s.references(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: pos, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			must(err)
		}
		_, err := s.documentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: id})
		must(err)
		_, err = s.formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: id})
		must(err)
		// The check runs under a recover in the server: call it bare.
		s.mu.Lock()
		d := s.docs[uri]
		s.mu.Unlock()
		_ = problems(d.kind, d.name, d.src(), d.dropped, func(string) []byte { return nil }, nil)
		// All the edits in one change, applied in one pass, leave the
		// text the edits one by one left.
		if len(batch) > 1 {
			bid := protocol.TextDocumentIdentifier{URI: "file:///fuzz/batch.hcl"}
			must(s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: bid.URI, Text: text, Version: 1}}))
			must(s.didChange(ctx, &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: bid, Version: 2}, ContentChanges: batch}))
			s.mu.Lock()
			got := string(s.docs[bid.URI].src())
			s.mu.Unlock()
			if got != model {
				t.Fatalf("the edits as one change: text %q, want %q", got, model)
			}
		}
	}
}
