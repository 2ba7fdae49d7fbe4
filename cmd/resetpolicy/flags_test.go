package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestSingleDashLongFlags: a single-dash long flag of any command is read
// as its double-dash form; shorthands, values, unknown names and anything
// after -- are left as written.
func TestSingleDashLongFlags(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	cases := []struct{ in, want []string }{
		{[]string{"serve", "--stdio"}, []string{"serve", "--stdio"}},
		{[]string{"fmt", "-check", "x.hcl"}, []string{"fmt", "--check", "x.hcl"}},
		{[]string{"test", "-run=starting", "dir"}, []string{"test", "--run=starting", "dir"}},
		{[]string{"check", "-v", "-q"}, []string{"check", "-v", "-q"}},
		{[]string{"check", "-nosuchflag"}, []string{"check", "-nosuchflag"}},
		{[]string{"test", "--", "-run"}, []string{"test", "--", "-run"}},
		{[]string{"test", "-run", "x", "--", "-check"}, []string{"test", "--run", "x", "--", "-check"}},
		{[]string{}, []string{}},
	}
	for _, c := range cases {
		in := append([]string(nil), c.in...)
		got := singleDashLongFlags(root, in)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("%q: the arguments given were changed to %q", c.in, in)
		}
	}
}

// TestNoFlagWalkWithoutSingleDash: the command line Pi starts the engine
// with has no single-dash flag, and reading it does not collect every
// command's flags (a sixtieth of serve's start): one allocation, the copy.
func TestNoFlagWalkWithoutSingleDash(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	args := []string{"serve", "--stdio"}
	if n := testing.AllocsPerRun(10, func() { singleDashLongFlags(root, args) }); n > 1 {
		t.Errorf("%v allocations to read %q", n, args)
	}
}
