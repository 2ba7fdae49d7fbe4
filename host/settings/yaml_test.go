package settings

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpu is the CPU time this process has used: on a shared machine wall
// time says little.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A config of 60,000 params (under MaxConfigBytes) decodes in linear
// time: yaml's decoder compared every key of a mapping with every other,
// 9–50 s for this file; here it is well under a second of CPU.
func TestManyParamsDecodeInLinearTime(t *testing.T) {
	var b strings.Builder
	b.WriteString("params:\n")
	for i := 0; i < 60_000; i++ {
		fmt.Fprintf(&b, "  u%05d: %d\n", i, i)
	}
	if b.Len() > MaxConfigBytes {
		t.Fatalf("the config is %d bytes, over the bound", b.Len())
	}
	userDir, projectDir := setup(t, fixture{projectYAML: b.String()})
	start := cpu()
	s, err := Load(Options{ProjectDir: projectDir, Trusted: true, UserConfigDir: userDir, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	_, diags := s.LoadPolicy()
	el := cpu() - start
	if len(s.Params) != 60_000 || len(diags.Diagnostics) != 60_000 {
		t.Fatalf("%d params, %d diagnostics; want 60000 of each", len(s.Params), len(diags.Diagnostics))
	}
	if el > 5*time.Second {
		t.Fatalf("took %v of CPU", el)
	}
}

func TestYAMLDecodesAsYAMLDoes(t *testing.T) {
	cases := []struct {
		name, text string
		want       string // fmt of the result, or the start of the error
		err        bool
	}{
		{"scalars", "a: 1\nb: x\nc: true\nd: 1.5\ne: null\nf: [1, 2]\n", "map[a:1 b:x c:true d:1.5 e:<nil> f:[1 2]]", false},
		{"nested", "params:\n  x: 1\n", "map[params:map[x:1]]", false},
		{"empty", "", "map[]", false},
		{"comment only", "# nothing\n", "map[]", false},
		{"alias", "base: &b {x: 1}\nparams: *b\n", "map[base:map[x:1] params:map[x:1]]", false},
		{"merge", "base: &b {x: 1, y: 2}\nparams:\n  <<: *b\n  y: 3\n", "map[base:map[x:1 y:2] params:map[x:1 y:3]]", false},
		{"merge after own key", "base: &b {x: 1, y: 2}\nparams:\n  y: 3\n  <<: *b\n", "map[base:map[x:1 y:2] params:map[x:1 y:3]]", false},
		// yaml decodes a mapping whose own keys are all strings (or merge
		// keys) into a map of strings, merged keys as their text; one with
		// an int key into a map of any values, the key a number.
		{"merged int key keeps its text", "0: &b {00}\n1:\n <<: *b", "map[0:map[0:<nil>] 1:map[00:<nil>]]", false},
		{"merged int key beside an int key", "0: &b {00}\n1:\n <<: *b\n 7: x", "map[0:map[0:<nil>] 1:map[0:<nil> 7:x]]", false},
		{"duplicate", "params:\n  x: 1\n  x: 2\n", `yaml: line 3: mapping key "x" already defined at line 2`, true},
		{"not a mapping", "- 1\n", "a config file is a mapping", true},
		{"two documents", "a: 1\n---\nb: 2\n", "a config file holds one YAML document", true},
		{"syntax", "a: [1\n", "yaml:", true},
		{"merged into itself", "e: &b\n  <<: *b\n  y: 1\n", `yaml: anchor "b" value contains itself`, true},
		{"contains itself", "a: &a [*a]\n", `yaml: anchor "a" value contains itself`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := decodeYAML([]byte(c.text))
			if c.err {
				if err == nil || !strings.HasPrefix(err.Error(), c.want) {
					t.Fatalf("err %v; want %q", err, c.want)
				}
				return
			}
			if err != nil || fmt.Sprint(m) != c.want {
				t.Fatalf("got %v, %v; want %s", m, err, c.want)
			}
		})
	}
}

// Aliases that expand exponentially stop at maxYAMLNodes.
func TestYAMLAliasesAreBounded(t *testing.T) {
	text := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 12; i++ {
		text += fmt.Sprintf("a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	start := time.Now()
	_, err := decodeYAML([]byte(text))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(maxYAMLNodes)) {
		t.Fatalf("err %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if maxYAMLNodes != 1<<20 {
		t.Fatalf("maxYAMLNodes is %d; the README says 1,048,576", maxYAMLNodes)
	}
}
