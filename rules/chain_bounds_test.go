package rules_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// terms is how long the hostile operator chains below are: HCL parses a
// chain into a left-leaning tree and evaluating it recurses once per
// operator, so 600,000 terms overflow the goroutine stack (a fatal error)
// without the bound.
const terms = 600_000

func chain(term, op string, n int) string {
	return strings.Repeat(term+op, n-1) + term
}

// long is a chain of as many terms as fit a file under the size bound, at
// most terms.
func long(term, op string) string {
	return chain(term, op, min(terms, (rules.MaxFileBytes-200)/(len(term)+len(op))))
}

func TestOperatorChainsAreBoundedBeforeEvaluation(t *testing.T) {
	param := func(def string) string {
		return "policy \"x\" {\n}\nparam \"p\" {\n  type    = number\n  default = " + def + "\n}\n"
	}
	jsonParam := func(def string) string {
		return `{"policy":{"x":{}},"param":{"p":{"type":"number","default":"${` + def + `}"}}}`
	}
	cases := []struct{ name, file, text string }{
		{"native sum", "p.hcl", param(long("1", "+"))},
		{"native product", "p.hcl", param(long("1", "*"))},
		{"native difference", "p.hcl", param(long("1", "-"))},
		{"native difference of strings", "p.hcl", param(long(`"a"`, "-"))},
		{"native quotient", "p.hcl", param(long("1", "/"))},
		{"native modulo", "p.hcl", param(long("1", "%"))},
		{"native and", "p.hcl", param(long("true", " && "))},
		{"native or", "p.hcl", param(long("false", "||"))},
		{"native equal", "p.hcl", param(long("1", "=="))},
		{"native not equal", "p.hcl", param(long("1", "!="))},
		{"native less", "p.hcl", param(long("1", "<"))},
		{"native greater or equal", "p.hcl", param(long("1", ">="))},
		{"native templates added", "p.hcl", param(long(`"${1}"`, "+"))},
		{"native across lines in parentheses", "p.hcl", param("(" + long("1", "+\n") + ")")},
		{"native in a list", "p.hcl", param("[" + long("1", "+") + "]")},
		{"native in an interpolation", "p.hcl", param(`"${` + long("1", "+") + `}"`)},
		{"native template interpolations", "p.hcl", param(`"` + long("${1}", "") + `"`)},
		{"native heredoc directives", "p.hcl", param("<<EOT\n" + long("%{if true}a%{endif}", "") + "\nEOT")},
		{"JSON template interpolations", "p.hcl.json", strings.Replace(jsonParam("1"), `"${1}"`, `"`+long("${1}", "")+`"`, 1)},
		{"JSON sum", "p.hcl.json", jsonParam(long("1", "+"))},
		{"JSON product", "p.hcl.json", jsonParam(long("1", "*"))},
		{"JSON and", "p.hcl.json", jsonParam(long("true", "&&"))},
		{"JSON escaped", "p.hcl.json", jsonParam(long("1", `\u002b`))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := processCPU()
			_, diags := loadText(c.file, c.text)
			wantSummary(t, diags, "Nesting too deep")
			d := diags.Diagnostics[0]
			if d.Subject == nil || d.Subject.Filename != c.file || d.Subject.Start.Line < 1 || d.Subject.Start.Column < 1 {
				t.Fatalf("diagnostic without a position: %+v", d)
			}
			if el := processCPU() - start; el > 2*time.Second {
				t.Fatalf("took %v of CPU", el)
			}
		})
	}
}

// The bound is MaxNesting operators in one expression: at it a chain
// loads, one more is refused.
func TestOperatorChainBoundIsExact(t *testing.T) {
	for _, op := range []string{"+", "*", "-", "&&", "||", "==", "<=", ">", "/", "%", "!="} {
		at := "a = " + chain("1", op, rules.MaxNesting+1) + "\n"
		if d := rules.CheckHCL([]byte(at), "p.hcl"); d.HasErrors() {
			t.Errorf("%s: %d operators refused: %v", op, rules.MaxNesting, d)
		}
		over := "a = " + chain("1", op, rules.MaxNesting+2) + "\n"
		if d := rules.CheckHCL([]byte(over), "p.hcl"); !d.HasErrors() {
			t.Errorf("%s: %d operators accepted", op, rules.MaxNesting+1)
		}
	}
	// Expressions end at a newline outside brackets and at a comma: many
	// short expressions are not one long chain.
	many := strings.Repeat("a = 1 + 1 * 2 - 3\n", 10*rules.MaxNesting) +
		"b = [" + strings.Repeat("1 + 1, ", 10*rules.MaxNesting) + "]\n" +
		"c = {\n" + strings.Repeat("  k = x > 1 && y < 2\n", 10*rules.MaxNesting) + "}\n"
	if d := rules.CheckHCL([]byte(many), "p.hcl"); d.HasErrors() {
		t.Fatalf("short expressions refused: %v", d)
	}
}

// What is not an operator does not count: dashes in identifiers, signs of
// exponents, assignments, a for expression's =>, operators in strings,
// heredocs and comments.
func TestOperatorChainBoundCountsOperatorsOnly(t *testing.T) {
	n := 10 * rules.MaxNesting
	text := "a = " + strings.Repeat("x-", n) + "x\n" +
		"b = [" + strings.Repeat("1e-5, ", n) + "]\n" +
		"c = {for k, v in m : k => v}\n" +
		"d = \"" + strings.Repeat("1+1*1&&", n) + "\"\n" +
		"e = <<EOT\n" + strings.Repeat("1 + 1 || ", n) + "\nEOT\n" +
		"# " + strings.Repeat("+", n) + "\n" +
		"/* " + strings.Repeat("==", n) + " */\n"
	if d := rules.CheckHCL([]byte(text), "p.hcl"); d.HasErrors() {
		t.Fatalf("refused: %v", d)
	}
}

// A list-typed --set value or setting is parsed as an HCL expression: it
// gets the same bound before it is evaluated.
func TestOverrideExpressionsAreBounded(t *testing.T) {
	start := processCPU()
	_, diags := rules.Load(rules.Source{Name: "small.hcl", Bytes: []byte(small)},
		rules.WithOverrides(rules.Override{Name: "delays", Raw: "[" + long("1", "+") + "]", Origin: "--set"}))
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "nest") {
		t.Fatalf("want a nesting error, got %v", diags.Error())
	}
	if el := processCPU() - start; el > 2*time.Second {
		t.Fatalf("took %v of CPU", el)
	}
}

// A guard is an expr-lang string: expr's parser counts its nodes against
// lang.DefaultMaxNodes (and lang.DefaultMaxBytes bounds the string), so an
// operator chain in a guard is a load error at the guard.
func TestGuardChainsAreBoundedByNodes(t *testing.T) {
	guard := func(expr string) string {
		return strings.Replace(small, `"event.tokens > param.runway && param.on"`, `"`+expr+`"`, 1)
	}
	// k terms of a sum are 2k-1 nodes, the comparison two more and the
	// negation one: 127 terms make 256 nodes.
	k := (lang.DefaultMaxNodes - 2) / 2
	at := "!(" + chain("1", "+", k) + " > 0)"
	if _, diags := loadText("ok.hcl", guard(at)); diags.HasErrors() {
		t.Fatalf("%d nodes refused: %s", lang.DefaultMaxNodes, diags.Error())
	}
	over := "!(" + chain("1", "+", k) + " > -0)"
	_, diags := loadText("over.hcl", guard(over))
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "syntax nodes") {
		t.Fatalf("over the node bound: %v", diags.Error())
	}
	if d := diags.Diagnostics[0]; d.Subject == nil || d.Subject.Start.Line < 1 {
		t.Fatalf("no position: %+v", d)
	}
	start := processCPU()
	_, diags = loadText("long.hcl", guard(long("1", "+")))
	if el := processCPU() - start; !diags.HasErrors() || el > 2*time.Second {
		t.Fatalf("a long guard: %v after %v of CPU", diags.Error(), el)
	}
}

// A guard is at most lang.DefaultMaxBytes long.
func TestGuardLengthIsBounded(t *testing.T) {
	guard := func(n int) string {
		// 'aaa…' == 'b': three nodes, n bytes in all.
		expr := "'" + strings.Repeat("a", n-len("'' == 'b'")) + "' == 'b'"
		return strings.Replace(small, `"event.tokens > param.runway && param.on"`, `"`+expr+`"`, 1)
	}
	if _, diags := loadText("at.hcl", guard(lang.DefaultMaxBytes)); diags.HasErrors() {
		t.Fatalf("%d bytes refused: %s", lang.DefaultMaxBytes, diags.Error())
	}
	_, diags := loadText("over.hcl", guard(lang.DefaultMaxBytes+1))
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "the limit is 2048") {
		t.Fatalf("%d bytes: %v", lang.DefaultMaxBytes+1, diags.Error())
	}
}

// Each interpolation or directive of a template is a part counted until
// the template ends: a message of a couple of hundred parts loads, 300,000
// (seconds and hundreds of MB to evaluate) are refused; many templates of
// a few parts each are not one long one.
func TestTemplatePartsAreBounded(t *testing.T) {
	ok := "a = \"" + strings.Repeat("${x}", rules.MaxNesting-10) + "\"\nb = <<EOT\n" + strings.Repeat("%{if x}y%{endif}", (rules.MaxNesting-10)/2) + "\nEOT\n"
	ok += strings.Repeat("c = \"${x} and ${y}\"\n", 10*rules.MaxNesting)
	if d := rules.CheckHCL([]byte(ok), "p.hcl"); d.HasErrors() {
		t.Fatalf("refused: %v", d)
	}
	over := "a = \"" + strings.Repeat("${x}", rules.MaxNesting) + "\"\n"
	if d := rules.CheckHCL([]byte(over), "p.hcl"); !d.HasErrors() {
		t.Fatal("a template of MaxNesting interpolations accepted")
	}
}
