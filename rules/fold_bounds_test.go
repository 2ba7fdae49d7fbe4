package rules_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/rules"
)

// foldingPolicy is a constant string doubled by derived values: every
// level folds to a constant at load, so without a bound a few KB of HCL
// would fold into 64 * 2^levels bytes.
func foldingPolicy(levels int, extra string) []byte {
	var b strings.Builder
	b.WriteString("policy \"folding\" {}\n")
	fmt.Fprintf(&b, "derived \"c0\" {\n  value = \"'%s'\"\n}\n", strings.Repeat("x", 64))
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "derived \"c%d\" {\n  value = \"c%d + c%d\"\n}\n", i, i-1, i-1)
	}
	b.WriteString(extra)
	return []byte(b.String())
}

func TestConstantFoldingObeysTheValueBound(t *testing.T) {
	src := foldingPolicy(60, "")
	if len(src) > 3000 {
		t.Fatalf("the file is %d bytes; the point is a small file", len(src))
	}
	start := time.Now()
	_, diags := rules.Load(rules.Source{Name: "folding.hcl", Bytes: src})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("loading took %v", took)
	}
	// c14 is 64 * 2^14 bytes, exactly 1 MiB; c15 = c14 + c14 (line 48) is
	// over the bound.
	msg := diags.Error()
	if !diags.HasErrors() || !strings.Contains(msg, "folding.hcl:48:") || !strings.Contains(msg, "c14 + c14: the string would be 2097152 bytes; a value is at most 1048576") {
		t.Fatalf("want the value bound at c14's expression, got: %v", msg)
	}
}

func TestFoldedConstantsOfAPolicyAreBounded(t *testing.T) {
	// c13 is 512 KiB; each of 40 more values is c13 + c13, 1 MiB each:
	// no single value is over its bound, but together they are 40 MiB.
	var extra strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&extra, "derived \"m%d\" {\n  value = \"c13 + c13\"\n}\n", i)
	}
	src := foldingPolicy(13, extra.String())
	if len(src) > 3000 {
		t.Fatalf("the file is %d bytes; the point is a small file", len(src))
	}
	_, diags := rules.Load(rules.Source{Name: "folding.hcl", Bytes: src})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "constant strings exceed 16 MiB") {
		t.Fatalf("want the folding bound, got: %v", diags.Error())
	}
}
