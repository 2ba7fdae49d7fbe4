// Package lsp is resetpolicy's language server: the Language Server
// Protocol (JSON-RPC 2.0 with Content-Length framing, positions in UTF-16
// code units) over one stream, for policy files, test files (*.test.hcl)
// and scenario files (*.scenario.hcl).
//
// It owns what an editor sees of those files — diagnostics as the author
// types, completion, hover, go to definition and references, formatting
// and the outline — and nothing else. Every answer is read off the same
// code the command line uses: rules.Load and rules.DeadParts for a
// policy's problems (so positions and messages are check's), rules.Outline
// for its declarations while it does not load, testfile.Parse (and
// engine/testrun for a test file's failing runs) and scenario.Parse for
// the other two kinds, rules/contract for the events,
// facts and effects with their docs, hclfmt.Format (hclwrite's, copied)
// for formatting (fmt's result). It has no parser of its own: positions
// come from HCL's syntax tree and the loader's diagnostics.
//
// Bounds: a message is read within MaxMessageBytes, and one that is no
// request is answered with an error while the server reads on (a stream
// that cannot be cut into messages ends Run with a FramingError); a
// document is analysed within rules.MaxFileBytes and rules.MaxNesting
// (the loader's bounds); at most rules.MaxDiagnosticsShown diagnostics are
// published per document; a completion list holds at most maxItems. Every
// request runs under a recover: a document that breaks a handler gets an
// LSP error answer, never a dead server.
//
// Checks run on checker goroutines (check.go), never on the goroutine
// that reads messages, one at a time (maxCheckers);
// a newer version stops the older check, and a test file's check runs
// within MaxCheckEvents and MaxCheckLoadBytes (budget.go). A change of
// many edits is applied in one pass (edits.go).
//
// A definition inside a built-in policy (a composed policy's inherited
// rule, slot or param) is shown in the built-in's embedded source, written
// on first use as a read-only file under the user's cache directory (see
// builtin.go): every editor opens a file URI, and nothing is written when
// the server starts.
//
// It uses tliron/glsp's protocol types and method dispatch and
// sourcegraph/jsonrpc2's connection, not glsp's server package, whose
// logging and network transports would add package inits to every start
// of the binary (docs/dependencies.md).
package lsp
