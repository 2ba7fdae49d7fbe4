package verify_test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// replays feeds the finding's eval input to a fresh session of p, as
// `resetpolicy eval` does, and requires every line to decide as the trace
// says it did.
func replays(t *testing.T, p *rules.Policy, f *verify.Finding) {
	t.Helper()
	s := engine.New(p).NewSession()
	sc := bufio.NewScanner(strings.NewReader(f.EvalLines()))
	sc.Buffer(nil, 1<<20)
	i := 0
	for sc.Scan() {
		ev, err := engine.ParseEvent(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: eval line %d: %v", f.Name, i+1, err)
		}
		d, err := s.Decide(ev)
		if err != nil {
			if f.Trace[i].Error == "" {
				t.Fatalf("%s: eval line %d: %v", f.Name, i+1, err)
			}
			i++
			continue
		}
		var got []string
		for _, e := range d.Effects {
			got = append(got, e.Name)
		}
		var want []string
		for _, e := range f.Trace[i].Effects {
			want = append(want, e["effect"].(string))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: eval line %d decides %v, the trace says %v", f.Name, i+1, got, want)
		}
		i++
	}
	if i == 0 || i != len(f.Trace) {
		t.Errorf("%s: %d eval lines for %d trace steps", f.Name, i, len(f.Trace))
	}
}

// runFails runs the finding's run block, as pasted into a *.test.hcl
// file, against p: it must fail, on its assert when it has one.
func runFails(t *testing.T, p *rules.Policy, f *verify.Finding) {
	t.Helper()
	src := "policy = \"" + p.Name + "\"\n" + f.RunBlock(p.Name)
	tf, diags := testfile.Parse([]byte(src), "verify.test.hcl")
	if diags.HasErrors() {
		t.Fatalf("%s: the run block does not parse:\n%s\n%s", f.Name, diags.Error(), src)
	}
	runner := testrun.New(func(*testfile.File, []rules.Override) (*rules.Policy, rules.Diagnostics) {
		return p, rules.Diagnostics{}
	})
	runner.RunFile(tf)
	rep := runner.Report()
	if rep.Failed() != 1 {
		t.Errorf("%s: the run block passes in test:\n%s", f.Name, src)
		return
	}
	if f.Assert == "" && f.Kind != verify.KindRuntime {
		t.Errorf("%s: the run block has no assert:\n%s", f.Name, src)
	}
	text := rep.Results[0].Text()
	if f.Assert != "" && !strings.Contains(text, f.Name) {
		t.Errorf("%s: the run fails, but not on its assert:\n%s", f.Name, text)
	}
}

// runPasses runs the finding's run block against p, which must pass it.
func runPasses(t *testing.T, p *rules.Policy, f *verify.Finding) {
	t.Helper()
	src := "policy = \"" + p.Name + "\"\n" + f.RunBlock(p.Name)
	tf, diags := testfile.Parse([]byte(src), "verify.test.hcl")
	if diags.HasErrors() {
		t.Fatalf("%s: the run block does not parse:\n%s", f.Name, diags.Error())
	}
	runner := testrun.New(func(*testfile.File, []rules.Override) (*rules.Policy, rules.Diagnostics) {
		return p, rules.Diagnostics{}
	})
	runner.RunFile(tf)
	if rep := runner.Report(); rep.Failed() != 0 {
		t.Errorf("%s: the run block fails against the fixed policy too:\n%s\n%s", f.Name, src, rep.Results[0].Text())
	}
}
