package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// docs/contract.md and docs/scenario.md are the --markdown output of
// `contract`; go test -update rewrites them.
func TestContractDocsAreCurrent(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"docs/contract.md", []string{"contract", "--markdown"}},
		{"docs/scenario.md", []string{"contract", "--scenario", "--markdown"}},
	} {
		stdout, stderr, code := runCLI(t, "", tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", tc.args, code, stderr)
		}
		if *update {
			if err := os.WriteFile(tc.file, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != stdout {
			t.Errorf("%s is stale: regenerate it with go test ./cmd/resetpolicy -run TestContractDocsAreCurrent -update", tc.file)
		}
	}
}

// Every event says when Pi reports it, every fact what it means; every step
// the scenario decoder takes is documented.
func TestContractReferenceIsComplete(t *testing.T) {
	stdout, _, code := runCLI(t, "", "contract", "--json")
	var ref contract.Reference
	if err := json.Unmarshal([]byte(stdout), &ref); err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if len(ref.Events) != len(contract.Events) || len(ref.Effects) != len(contract.Effects) || ref.Version != contract.Version {
		t.Errorf("--json has %d events and %d effects", len(ref.Events), len(ref.Effects))
	}
	for _, e := range ref.Events {
		if e.Reported == "" {
			t.Errorf("event %s does not say when the Pi host reports it", e.Name)
		}
		// Printed as "reported when <Reported>", so it is a clause of its
		// own: "reported when before each request" does not read.
		if first, _, _ := strings.Cut(e.Reported, " "); first == "before" || first == "after" || first == "when" {
			t.Errorf("event %s: %q does not follow \"reported when\"", e.Name, e.Reported)
		}
		for _, f := range append(e.Facts, ref.CommonFacts...) {
			if f.Doc == "" {
				t.Errorf("fact %s of %s has no meaning", f.Name, e.Name)
			}
		}
	}
	for _, e := range ref.Effects {
		for _, a := range e.Args {
			if a.Doc == "" {
				t.Errorf("argument %s of effect %s has no meaning", a.Name, e.Name)
			}
		}
	}
	var documented []string
	for _, s := range scenario.StepRefs {
		documented = append(documented, s.Block)
	}
	steps := scenario.StepNames()
	slices.Sort(steps)
	slices.Sort(documented)
	if !slices.Equal(steps, documented) {
		t.Errorf("scenario steps %v, documented %v", steps, documented)
	}
	if _, _, code := runCLI(t, "", "contract", "--json", "--markdown"); code != 2 {
		t.Errorf("--json --markdown: exit %d", code)
	}
}
