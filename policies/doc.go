// Package policies holds the built-in policies — wipe_memory, new_context
// and autocompacter, one per seed system — and their test files, embedded
// in the binary. It owns their text and nothing else: loading goes through
// package rules like any other file.
package policies
