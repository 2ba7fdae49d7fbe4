package rules_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// BenchmarkParseWipeMemoryHCL is HCL's parse of policies/wipe_memory.hcl
// alone: the floor under loading it (engine's BenchmarkLoadWipeMemory).
func BenchmarkParseWipeMemoryHCL(b *testing.B) {
	src, _ := policies.Source("wipe_memory")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, diags := hclsyntax.ParseConfig(src.Bytes, src.Name, hcl.InitialPos); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkLoadRatio alternates HCL's own parse of wipe_memory.hcl with
// loading it (validate, compile) as the built-in loads, from its syntax
// tree, as a file of the same bytes loads, parsing them, and as a file of
// the same policy in expressions of its own loads, reporting each and the
// ratios to the parse in one run (target: ratio ≤ 1.3). Times are the process's CPU time, so the
// garbage collector's work on other threads counts, and waiting for a core
// on a shared machine does not.
func BenchmarkLoadRatio(b *testing.B) {
	src, _ := policies.Source("wipe_memory")
	// The built-in loads from its syntax tree, made at build time; any
	// other file (the same bytes without the tree) is parsed.
	file := src
	file.Tree = nil
	// A file of its own expressions: the built-ins' are in expr's checked
	// and parsed form in the binary (lang's prechecked table), which a
	// file of the same bytes shares. Doubling the spaces around operators
	// changes each expression's text and nothing else.
	own := file
	own.Bytes = bytes.Clone(file.Bytes)
	for _, op := range []string{" == ", " != ", " && ", " || ", " > ", " < ", " >= ", " <= ", " + ", " - ", " ? ", " : "} {
		own.Bytes = bytes.ReplaceAll(own.Bytes, []byte(op), []byte(" "+op+" "))
	}
	var parse, load, loadFile, loadOwn time.Duration
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t0 := processCPU()
		if _, diags := hclsyntax.ParseConfig(src.Bytes, src.Name, hcl.InitialPos); diags.HasErrors() {
			b.Fatal(diags)
		}
		t1 := processCPU()
		if _, diags := rules.Load(src); diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		t2 := processCPU()
		if _, diags := rules.Load(file); diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		t3 := processCPU()
		if _, diags := rules.Load(own); diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		t4 := processCPU()
		parse += t1 - t0
		load += t2 - t1
		loadFile += t3 - t2
		loadOwn += t4 - t3
	}
	b.ReportMetric(float64(parse.Nanoseconds())/float64(b.N)/1e6, "parse-ms")
	b.ReportMetric(float64(load.Nanoseconds())/float64(b.N)/1e6, "load-ms")
	b.ReportMetric(float64(load)/float64(parse), "ratio")
	b.ReportMetric(float64(loadFile)/float64(parse), "ratio-parsed")
	b.ReportMetric(float64(loadOwn)/float64(parse), "ratio-own-expressions")
}

// generated is a policy of n rules on distinct tool names.
func generated(n int) rules.Source {
	var s strings.Builder
	s.WriteString("policy \"many\" {}\nslot \"phase\" {\n  values = [\"idle\", \"busy\"]\n}\nslot \"last\" {\n  type = string\n}\ngroup \"tools\" {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&s, "  rule \"t%d\" {\n    on = \"tool\"\n    from = { phase = \"idle\" }\n    when = \"event.name == 'tool%d' && event.enabled\"\n    to = { phase = \"busy\" }\n    set = { last = \"event.window_id\" }\n  }\n", i, i)
	}
	s.WriteString("}\n")
	return rules.Source{Name: "many.hcl", Bytes: []byte(s.String())}
}

// BenchmarkLoad1000Rules and BenchmarkLoad10000Rules show loading grows
// linearly with the number of rules (ms/op of the second about 10x the
// first).
func BenchmarkLoad1000Rules(b *testing.B)  { benchLoad(b, generated(1000)) }
func BenchmarkLoad10000Rules(b *testing.B) { benchLoad(b, generated(10000)) }

func benchLoad(b *testing.B, src rules.Source) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, diags := rules.Load(src); diags.HasErrors() {
			b.Fatal(diags.Error())
		}
	}
}
