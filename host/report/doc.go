// Package report writes the policy report: one self-contained HTML page
// that answers what a policy does, whether it is proven, whether it is
// tested, and what it would have done on a team's recorded sessions.
//
// The page is data-driven: every figure on it comes from one JSON
// document (Doc) embedded in the page, whose sections are produced by the
// same code as `resetpolicy policies --json`, `verify --json`, `test
// --json` and `replay --json`, so the page never disagrees with the CLI.
// This package owns the document's shape, the context-over-turns charts
// (SVG drawn here, so the page needs no charting script and no network)
// and the page's markup, style and the little script that makes it
// interactive. It reads no files and starts no processes: the command
// gathers the sections and hands them over.
package report
