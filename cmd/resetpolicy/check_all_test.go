package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One run of check reports every problem of a file: the decoding ones
// (a wrong default, duplicates) and the ones compiling finds, inside a
// rule whose event is misspelt too.
func TestCheckReportsEveryProblemInOneRun(t *testing.T) {
	_, errOut, code := runCLI(t, "", "check", "testdata/check/many_mistakes.hcl")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	got := regexp.MustCompile(`(?m)^testdata/check/many_mistakes\.hcl:(\d+):\d+: error: (.*)$`).FindAllStringSubmatch(errOut, -1)
	var lines []string
	for _, m := range got {
		lines = append(lines, m[1]+" "+m[2])
	}
	want := []string{
		"7 Wrong default type", "11 Duplicate param", "31 Unknown event", "32 Undeclared state",
		"33 Invalid expression", "34 Undeclared state", "35 Invalid expression", "37 Undeclared message",
		"38 Invalid effect argument", "41 Duplicate rule", "43 Wrong guard type", "44 Unknown effect",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("check reported\n%s\nwant\n%s\nstderr:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"), errOut)
	}
}

// Many problems are capped at 20 printed, with how many more there are.
func TestCheckCapsTheProblemsItPrints(t *testing.T) {
	var b strings.Builder
	b.WriteString("policy \"many\" {\n  description = \"x\"\n}\n\ngroup \"g\" {\n")
	for i := range 25 {
		fmt.Fprintf(&b, "  rule \"r%d\" {\n    on = \"nope%d\"\n  }\n", i, i)
	}
	b.WriteString("}\n")
	file := filepath.Join(t.TempDir(), "many.hcl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "", "check", file)
	if n := strings.Count(errOut, ": error: Unknown event"); code != 1 || n != 20 || !strings.Contains(errOut, "and 5 more") {
		t.Errorf("exit %d, %d printed:\n%s", code, n, errOut)
	}
}
