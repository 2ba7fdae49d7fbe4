package testrun_test

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// runSource runs a test file given as text, as if it were
// testdata/testrun/NAME.test.hcl, so that `policy = "tiny.hcl"` names the
// runner's small fixture policy.
func runSource(t *testing.T, name, src string, opts ...testrun.Option) *testrun.Report {
	t.Helper()
	f, diags := testfile.Parse([]byte(src), "../../testdata/testrun/"+name+".test.hcl")
	if diags.HasErrors() {
		t.Fatalf("test file does not decode: %v", diags)
	}
	runner := testrun.New(loadPolicy, opts...)
	runner.RunFile(f)
	return runner.Report()
}

// failures lists "WHERE/WHAT" of every failure of every run.
func failures(rep *testrun.Report) []string {
	var out []string
	for _, r := range rep.Results {
		for _, f := range r.Failures {
			out = append(out, f.Where+"/"+f.What)
		}
	}
	return out
}

// Each expectation kind must pass when the behaviour matches and fail when
// it does not; tiny.hcl counts completed turns up to its limit (3 here,
// from the file's params) and then notifies and commits a reset.
func TestExpectationsPassAndFail(t *testing.T) {
	const head = "policy = \"tiny.hcl\"\nparams = { limit = 3 }\n"
	const started = "state = { phase = \"counting\", count = 2 }\n"
	tests := []struct {
		name string
		run  string
		want []string // WHERE/WHAT of the failures; none when it passes
	}{
		{"rules equal", started + expectOn("turn_end", `rules = ["finish"]`), nil},
		{"rules differ", started + expectOn("turn_end", `rules = ["count"]`), []string{"event 1 turn_end/rules"}},
		{"rules [] but one fired", started + expectOn("turn_end", `rules = []`), []string{"event 1 turn_end/rules"}},
		{"rules [] and none fired", expectOn("turn_end", `rules = []`), nil},
		{"effects equal, omitted args unchecked", started + expectOn("turn_end", `effects = [{ effect = "notify", level = "info" }, { effect = "commit_reset" }]`), nil},
		{"effects missing one", started + expectOn("turn_end", `effects = [{ effect = "notify" }]`), []string{"event 1 turn_end/effects"}},
		{"effects arg differs", started + expectOn("turn_end", `effects = [{ effect = "notify", level = "warning" }, { effect = "commit_reset" }]`), []string{"event 1 turn_end/effects"}},
		{"effects [] but some came", started + expectOn("turn_end", `effects = []`), []string{"event 1 turn_end/effects"}},
		{"effects_contain with a gap", started + expectOn("turn_end", `effects_contain = [{ effect = "commit_reset", stop = true }]`), nil},
		{"effects_contain out of order", started + expectOn("turn_end", `effects_contain = [{ effect = "commit_reset" }, { effect = "notify" }]`), []string{"event 1 turn_end/effects_contain"}},
		{"expected error comes", expectOn("turn_end", `error = "tokens"`, `tokens = "x"`), nil},
		{"expected error does not come", expectOn("turn_end", `error = "tokens"`, `tokens = 5`), []string{"event 1 turn_end/error"}},
		{"error text differs", expectOn("turn_end", `error = "outcome"`, `tokens = "x"`), []string{"event 1 turn_end/error"}},
		{"state after an event equal", started + expectOn("turn_end", `state = { phase = "done", count = 3 }`), nil},
		{"state after an event differs", started + expectOn("turn_end", `state = { count = 2 }`), []string{"event 1 turn_end/state"}},
		{"final state differs", started + "event \"turn_end\" {}\nexpect { state = { phase = \"counting\" } }", []string{"final state/"}},
		{"final state names an unknown slot", "expect { state = { phase = \"idle\", nope = 1 } }", []string{"final state/"}},
		{"assert holds", started + "event \"turn_end\" {}\nassert { condition = \"last.rules == ['finish'] && state.count == 3\" }", nil},
		{"assert is false", started + "event \"turn_end\" {}\nassert { condition = \"state.count == 2\" }", []string{"assert 1/"}},
		{"assert fails at run time", "assert { condition = \"last.effects[0].level == 'info'\" }", []string{"assert 1/"}},
		{"starting state rejected", "state = { phase = \"sleeping\" }\nevent \"turn_end\" {}", []string{"start state/"}},
		{"param override rejected", "params = { limit = 0 }", []string{"policy/"}},
		{"several failures in one run are all reported", started + expectOn("turn_end", "rules = []\neffects = []") +
			expectOn("turn_end", `rules = ["count"]`), []string{"event 1 turn_end/rules", "event 1 turn_end/effects", "event 2 turn_end/rules"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := runSource(t, "case", head+"run \"r\" {\n"+tt.run+"\n}\n")
			got := failures(rep)
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				var out bytes.Buffer
				_ = rep.WriteText(&out, testrun.TextOptions{})
				t.Errorf("failures = %q, want %q\n%s", got, tt.want, out.String())
			}
			wantFailed := 0
			if len(tt.want) > 0 {
				wantFailed = 1
			}
			if rep.Failed() != wantFailed || rep.Passed() != 1-wantFailed {
				t.Errorf("passed %d, failed %d", rep.Passed(), rep.Failed())
			}
		})
	}
}

func TestUnknownBuiltinFailsEveryRun(t *testing.T) {
	rep := runSource(t, "unknown", "policy = \"no_such_policy\"\nrun \"a\" {}\nrun \"b\" {}\n")
	if got := failures(rep); strings.Join(got, ";") != "policy/;policy/" {
		t.Errorf("failures = %q, want each run to fail on its policy", got)
	}
}

// A failing run never stops the others, and the last line counts them.
func TestFailingRunDoesNotStopOthers(t *testing.T) {
	rep := runSource(t, "mixed", `policy = "tiny.hcl"
run "first fails" {
`+expectOn("session_start", "rules = []")+`
}
run "second passes" {
`+expectOn("session_start", `rules = ["start"]`)+`
}
run "third fails" {
  expect { state = { phase = "done" } }
}
`)
	var out bytes.Buffer
	if err := rep.WriteText(&out, testrun.TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"--- FAIL: mixed.test.hcl/first fails (event 1 session_start)\n",
		"--- PASS: mixed.test.hcl/second passes\n",
		"--- FAIL: mixed.test.hcl/third fails (final state)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "\n1 passed, 2 failed\n") {
		t.Errorf("last line is not the totals:\n%s", text)
	}
	out.Reset()
	_ = rep.WriteText(&out, testrun.TextOptions{})
	if strings.Contains(out.String(), "--- PASS") {
		t.Errorf("PASS lines without verbose:\n%s", out.String())
	}
}

func TestFilter(t *testing.T) {
	src := "policy = \"tiny.hcl\"\nrun \"alpha one\" {}\nrun \"alpha two\" {}\nrun \"beta\" {}\n"
	tests := []struct {
		re   string
		want int
	}{
		{"", 3},
		{"alpha", 2},
		{"^filter.test.hcl/beta$", 1},
		{"other.test.hcl", 0},
	}
	for _, tt := range tests {
		t.Run(tt.re, func(t *testing.T) {
			var opts []testrun.Option
			if tt.re != "" {
				opts = append(opts, testrun.Filter(regexp.MustCompile(tt.re)))
			}
			rep := runSource(t, "filter", src, opts...)
			if len(rep.Results) != tt.want {
				t.Errorf("%d runs ran, want %d", len(rep.Results), tt.want)
			}
		})
	}
}

func TestCoverage(t *testing.T) {
	rep := runSource(t, "cov", `policy = "tiny.hcl"
run "start and count" {
  event "session_start" {}
  event "turn_end" {}
}
`)
	cov := rep.Coverage()
	if len(cov) != 1 {
		t.Fatalf("coverage of %d policies, want 1", len(cov))
	}
	c := cov[0]
	if c.Name != "tiny" || c.Rules != 4 || c.Fired != 2 || strings.Join(c.Unfired, ",") != "finish,reopen" {
		t.Errorf("coverage = %+v", c)
	}
	if c.Share() != 0.5 {
		t.Errorf("share = %v, want 0.5", c.Share())
	}
	var out bytes.Buffer
	_ = rep.WriteText(&out, testrun.TextOptions{Coverage: true})
	for _, want := range []string{"2 of 4 rules fired (50.0%)", "    not fired: finish\n", "    not fired: reopen\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("coverage text lacks %q:\n%s", want, out.String())
		}
	}
}

func TestJUnit(t *testing.T) {
	rep := runSource(t, "junit", `policy = "tiny.hcl"
run "passes" {}
run "fails <&>" {
  expect { state = { phase = "done" } }
}
`)
	rep2 := testrun.New(loadPolicy)
	rep2.RunFile(mustParse(t, "policy = \"tiny.hcl\"\nrun \"x\" {}\n", "../../testdata/testrun/other.test.hcl"))
	rep2.Invalid("bad.test.hcl", nil, nil)
	rep.Results = append(rep.Results, rep2.Report().Results...)

	var out bytes.Buffer
	if err := rep.WriteJUnit(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 3 {
		t.Fatalf("tests %d failures %d errors %d suites %d\n%s", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites), out.String())
	}
	failed := doc.Suites[0].Cases[1]
	if failed.Name != "fails <&>" || failed.Failure == nil || failed.Failure.Message != "final state" ||
		!strings.Contains(failed.Failure.Text, `want: {"phase":"done"}`) {
		t.Errorf("failed case = %+v", failed)
	}
	if doc.Suites[0].Cases[0].Failure != nil {
		t.Errorf("passing case has a failure")
	}
	if doc.Suites[2].Cases[0].Error == nil {
		t.Errorf("invalid file has no <error>")
	}
}

// expectOn writes an event block with facts and an expect block.
func expectOn(event, expect string, facts ...string) string {
	return "event \"" + event + "\" {\n" + strings.Join(facts, "\n") + "\nexpect {\n" + expect + "\n}\n}\n"
}

func mustParse(t *testing.T, src, name string) *testfile.File {
	t.Helper()
	f, diags := testfile.Parse([]byte(src), name)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f
}

// An assert sees the derived values on the last event and the params: the
// condition a verify counterexample of an invariant writes.
func TestAssertSeesDerivedAndParams(t *testing.T) {
	rep := runSource(t, "derived", `policy = "wipe_memory"
run "derived values and params" {
  event "request" {
    tokens = 190000
  }
  assert {
    condition = "derived.remaining == 10000 && derived.warning_due && param.warning_runway == 12288"
  }
}
run "no event, no derived values" {
  assert {
    condition = "derived == {} && param.warning_runway == 12288"
  }
}
`)
	if got := failures(rep); len(got) != 0 || len(rep.Results) != 2 {
		t.Errorf("failures %v of %d runs", got, len(rep.Results))
	}
}
