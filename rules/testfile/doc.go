// Package testfile decodes policy test files (`NAME.test.hcl`): the policy a
// file names and its param overrides, and each `run` block with its starting
// state, its events (facts checked and converted to the types of the host
// contract, omitted facts left to the contract's defaults), its expectations
// (rules, effects, final state, expected errors) and its `assert` conditions,
// compiled once as expr programs.
//
// Every decoded value keeps its source range, and every problem in a test
// file is an hcl.Diagnostic that points at file:line:col, down to the column
// inside an assert condition string.
//
// It owns the format and nothing else: it reads only the files it is given
// (and Find lists the test files under a directory it is given), never loads
// or runs a policy, never reads the clock or the environment,
// and never panics on bad input. Running the decoded runs is the job of
// engine/testrun; choosing where to look is the job of the command line.
package testfile
