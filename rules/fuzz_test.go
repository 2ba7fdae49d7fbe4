package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// seedFiles adds every file matching the patterns as a seed.
func seedFiles(f *testing.F, patterns ...string) {
	f.Helper()
	n := 0
	for _, pattern := range patterns {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			if !rules.IsPolicyFile(p) {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
			n++
		}
	}
	if n == 0 {
		f.Fatalf("no seed files in %v", patterns)
	}
}

// loadBudget is far more time than loading any input of a fuzzer's size
// needs, even on a busy machine: past it, the input found a cost that is
// not bounded.
const loadBudget = 10 * time.Second

func fuzzLoad(t *testing.T, name, text string) {
	done := make(chan string, 1)
	go func() {
		p, diags := rules.Load(rules.Source{Name: name, Bytes: []byte(text)}, rules.WithBuiltins(policies.Source))
		if p == nil && !diags.HasErrors() {
			done <- "no policy and no error"
			return
		}
		_ = diags.Error()
		_ = rules.FormatDiagnosticsN(diags.Sources, diags.Diagnostics, -1)
		done <- ""
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Fatal(msg)
		}
	case <-time.After(loadBudget):
		t.Fatalf("loading took more than %v", loadBudget)
	}
}

// FuzzLoad loads arbitrary policy text in native syntax: it loads or gives
// diagnostics, and never panics or overflows the stack. Seeds: every
// policy under policies/ and testdata/, valid and not.
func FuzzLoad(f *testing.F) {
	f.Add(small)
	// Operator chains at the nesting bound and one past it, in a param
	// default and in an interpolation, for the fuzzer to vary.
	for _, n := range []int{rules.MaxNesting + 1, rules.MaxNesting + 2} {
		f.Add("policy \"x\" {\n}\nparam \"p\" {\n  type = number\n  default = " + chain("1", "+", n) + "\n}\n")
		f.Add("a = \"${" + chain("x", " && ", n) + "}\"\nb = " + chain("1", "*", n) + "\n")
		f.Add("m = \"" + strings.Repeat("${x}", n-2) + "\"\nh = <<EOT\n" + strings.Repeat("%{if x}y%{endif}", n/2-1) + "\nEOT\n")
	}
	seedFiles(f, "../policies/*.hcl", "../testdata/*/*.hcl", "../testdata/*/*/*.hcl")
	f.Fuzz(func(t *testing.T, text string) { fuzzLoad(t, "fuzz.hcl", text) })
}

// FuzzLoadJSON is FuzzLoad for HCL's JSON form.
func FuzzLoadJSON(f *testing.F) {
	f.Add(smallJSON)
	f.Add(`{"use": {"wipe_memory": {"warning_runway": 8192}}}`)
	f.Add(`{"message": {"m": {"text": "a ${\"b\"} %{ if true }c%{ endif }"}}}`)
	for _, n := range []int{rules.MaxNesting + 1, rules.MaxNesting + 2} {
		f.Add(`{"policy":{"x":{}},"param":{"p":{"type":"number","default":"${` + chain("1", "+", n) + `}"}}}`)
	}
	seedFiles(f, "../testdata/*/*.hcl.json")
	f.Fuzz(func(t *testing.T, text string) { fuzzLoad(t, "fuzz.hcl.json", text) })
}
