// Package testrun runs decoded policy test files (see rules/testfile): each
// run gets the policy loaded with its param overrides, a fresh session, its
// starting state and its events in order, and every expectation and assert
// is checked. A failing run never stops the others; every failure is
// collected with what was expected and what happened.
//
// A Report prints like `go test` (`--- FAIL: FILE/RUN`, expected versus
// actual, the last line `N passed, N failed`), computes rule coverage per
// policy (the share of its rules some run fired, and the rules none fired)
// and writes JUnit XML.
//
// Like the rest of engine/, it is pure: it reads no files, no clock and no
// environment. It takes already-decoded test files, a Loader that turns a
// test file's policy reference and overrides into a compiled policy, and
// io.Writers for its output. Finding and reading files is the job of the
// command line and of rules/testfile.
package testrun
