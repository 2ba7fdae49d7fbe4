package main

import (
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestVerifyExitCodes(t *testing.T) {
	out, errOut, code := runCLI(t, "", "verify", "new_context")
	if code != 0 {
		t.Fatalf("verify new_context: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"ok    new_context: at most one attempt in flight", "states", "transitions", "verified in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "", "verify", "testdata/verify/aborted_commit.hcl")
	if code != 1 {
		t.Fatalf("broken policy: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"FAIL  aborted_commit: an aborted turn never commits a reset",
		`{"event":"tool","name":"reset"}`,
		`{"event":"turn_end","outcome":"aborted"}`,
		`run "verify: an aborted turn never commits a reset" {`,
		`condition     = "none(last.effects, .effect == 'commit_reset')"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := runCLI(t, "", "verify", "--depth", "-1", "new_context"); code != 2 {
		t.Errorf("--depth -1: exit %d, want 2", code)
	}
	if _, _, code := runCLI(t, "", "verify", "--nope"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

func TestVerifyJSON(t *testing.T) {
	out, _, code := runCLI(t, "", "verify", "--json", "testdata/verify/aborted_commit.hcl")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var r struct {
		Policy      string `json:"policy"`
		States      int    `json:"states"`
		Transitions int    `json:"transitions"`
		Findings    []struct {
			Name  string `json:"name"`
			Kind  string `json:"kind"`
			Trace []struct {
				Event   map[string]any `json:"event"`
				Effects []map[string]any
			} `json:"trace"`
		} `json:"findings"`
		EvalInputs map[string]string `json:"eval_inputs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Policy != "aborted_commit" || r.States == 0 || r.Transitions == 0 || len(r.Findings) != 1 {
		t.Fatalf("unexpected result: %s", out)
	}
	f := r.Findings[0]
	if f.Kind != "property" || len(f.Trace) != 2 || f.Trace[1].Event["outcome"] != "aborted" {
		t.Errorf("finding: %+v", f)
	}
	// The eval input, decided by eval, commits on the aborted turn.
	evalOut, _, code := runCLI(t, r.EvalInputs[f.Name], "eval", "--policy", "testdata/verify/aborted_commit.hcl")
	if code != 0 || !strings.Contains(strings.Split(strings.TrimSpace(evalOut), "\n")[1], `"commit_reset"`) {
		t.Errorf("eval of the counterexample (exit %d):\n%s", code, evalOut)
	}
}

func TestTestVerify(t *testing.T) {
	out, _, code := runCLI(t, "", "test", "--verify", "testdata/project")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(out, "ok    wipe_memory: at most one reset per window") || !strings.HasSuffix(lines[len(lines)-1], "passed, 0 failed") {
		t.Errorf("test --verify output:\n%s", out)
	}
}

// A run cut by a bound is incomplete, exit 3, and names the bound, in text
// and in JSON; --depth is the author's bound and every line says so.
func TestVerifyBounds(t *testing.T) {
	out, _, code := runCLI(t, "", "verify", "--json", "--max-states", "5", "wipe_memory")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (incomplete)\n%s", code, out)
	}
	var r struct {
		Incomplete bool `json:"incomplete"`
		Bound      struct {
			Kind  string  `json:"kind"`
			Limit float64 `json:"limit"`
		} `json:"bound"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !r.Incomplete || r.Bound.Kind != "states" || r.Bound.Limit != 5 || r.Params["warning_runway"] != 12288.0 {
		t.Errorf("result: %+v", r)
	}
	out, _, code = runCLI(t, "", "verify", "--depth", "2", "new_context")
	if code != 0 {
		t.Fatalf("--depth 2: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "ok    new_context") || !strings.Contains(out, "bound new_context: at most one attempt in flight (no violation within --depth 2") {
		t.Errorf("a depth-bounded run does not say it is bounded:\n%s", out)
	}
	if _, _, code := runCLI(t, "", "verify", "--max-states", "-1", "new_context"); code != 2 {
		t.Errorf("--max-states -1: exit %d, want 2", code)
	}
}

// A verify block's params are proved besides the values in force: a policy
// that holds at its default and forgets a cap fails at a saved value, and
// the report names the values.
func TestVerifyParamSets(t *testing.T) {
	out, _, code := runCLI(t, "", "verify", "testdata/verify/uncapped_limit.hcl")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"params of uncapped_limit (the result is for these values): limit=100",
		"ok    uncapped_limit: a reset by 150 tokens at the latest",
		"params of uncapped_limit (the result is for these values): limit=200",
		"FAIL  uncapped_limit: a reset by 150 tokens at the latest",
		`"event":"turn_end","tokens":150`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// test --verify proves them too.
	out, _, code = runCLI(t, "", "test", "--verify", "testdata/verify/uncapped_limit.test.hcl")
	if code != 1 || !strings.Contains(out, "limit=200") || !strings.Contains(out, "FAIL  uncapped_limit: a reset by 150 tokens at the latest") {
		t.Errorf("test --verify: exit %d\n%s", code, out)
	}
	// --set fixes the param: the verify block's values are not tried.
	if out, _, code := runCLI(t, "", "verify", "--set", "limit=120", "testdata/verify/uncapped_limit.hcl"); code != 0 || strings.Contains(out, "limit=200") {
		t.Errorf("--set limit=120: exit %d\n%s", code, out)
	}
}

// A CPU-time budget, given, stops an exploration as incomplete (exit 3,
// not a failure), naming it; by default there is none, as docs/limits.md
// says, so the verdict is the counts'.
func TestVerifyTimeout(t *testing.T) {
	out, errOut, code := runCLI(t, "", "verify", "--timeout", "1ns", "autocompacter")
	if code != 3 || !strings.Contains(out, "incomplete: the exploration stopped at the time limit of 1e-09 s") ||
		!strings.Contains(out, "autocompacter: incomplete in") || strings.Contains(out+errOut, "failed verification") {
		t.Errorf("--timeout 1ns: exit %d\n%s%s", code, out, errOut)
	}
	if o := (verifyLimits{}).options(); o.Stop != nil || o.TimeLimit != 0 {
		t.Errorf("a time limit by default: %+v", o)
	}
	b, err := os.ReadFile("docs/limits.md") // TestMain runs the tests from the repository root
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "| CPU time one `verify` of a policy takes (`--timeout`) | none by default") {
		t.Errorf("docs/limits.md does not say verify has no time limit by default")
	}
}

// The verdict and the counts are the same with the CPU taken by other
// work: the default bounds are counts, and the result says nothing of
// time but its "seconds".
func TestVerifyVerdictIgnoresLoad(t *testing.T) {
	run := func() (int, map[string]any) {
		out, errOut, code := runCLI(t, "", "verify", "--json", "wipe_memory")
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s%s", err, out, errOut)
		}
		delete(r, "seconds")
		return code, r
	}
	idleCode, idle := run()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; ; x++ {
				select {
				case <-stop:
					return
				default:
				}
				for range 1 << 16 {
					x = x*31 + 7
				}
			}
		}()
	}
	busyCode, busy := run()
	close(stop)
	wg.Wait()
	if idleCode != 0 || busyCode != idleCode || !reflect.DeepEqual(idle, busy) {
		t.Errorf("idle: exit %d, %v states %v transitions; busy: exit %d, %v states %v transitions (results equal: %v)",
			idleCode, idle["states"], idle["transitions"], busyCode, busy["states"], busy["transitions"], reflect.DeepEqual(idle, busy))
	}
}

// The default run says it covered the values in force only; --params
// range explores each param's boundaries, fails on the one that breaks
// the property with a run block that sets it, lists what validation
// rejects, and leaves a --set param where it is.
func TestVerifyParamsRange(t *testing.T) {
	const file = "testdata/verify/margin.hcl"
	out, _, code := runCLI(t, "", "verify", file)
	if code != 0 || !strings.Contains(out, "params: explored at the values in force only") {
		t.Fatalf("default run: exit %d, want 0 and the values-in-force line:\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "verify", "--params", "range", file)
	if code != 1 {
		t.Fatalf("--params range: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"--- margin at cap=1",
		"params = { cap = 1 }",
		"params range of margin: 13 configurations",
		"  failed     cap=1  (validation of cap: value > 0)",
		"  proved     cap=99  (validation of cap: value < 100)",
		`  outside    limit=2: `,
		"testdata/verify/margin.hcl: failed over its params' range",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--params range output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "", "verify", "--params", "range", "--set", "cap=50", file)
	if code != 0 || strings.Contains(out, "cap=1") {
		t.Errorf("--set cap=50 fixes cap: exit %d, want 0 with no cap value explored\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "verify", "--params", "range", "--json", file)
	if code != 1 {
		t.Fatalf("--json: exit %d, want 1", code)
	}
	var r struct {
		ParamsRange struct {
			Configs []struct {
				Set     map[string]string `json:"set"`
				Verdict string            `json:"verdict"`
				Result  *struct {
					RunBlocks map[string]string `json:"run_blocks"`
				} `json:"result"`
			} `json:"configs"`
			Outside []struct {
				Param, Value, Reason string
			} `json:"outside_validation"`
		} `json:"params_range"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	failed := 0
	for _, c := range r.ParamsRange.Configs {
		if c.Verdict == "failed" {
			failed++
			if c.Set["cap"] != "1" || c.Result == nil || !strings.Contains(c.Result.RunBlocks["nothing is cancelled under 3 tokens"], "params = { cap = 1 }") {
				t.Errorf("the failed configuration: %+v", c)
			}
		}
	}
	if failed != 1 || len(r.ParamsRange.Configs) != 13 || len(r.ParamsRange.Outside) != 1 {
		t.Errorf("%d configurations, %d failed, %d outside; want 13, 1, 1", len(r.ParamsRange.Configs), failed, len(r.ParamsRange.Outside))
	}
	if _, _, code := runCLI(t, "", "verify", "--params", "all", file); code != 2 {
		t.Errorf("--params all: exit %d, want 2", code)
	}
}

// test --verify --params range sweeps the tested policy too, leaving the
// params the test file sets; without --verify the flag is a usage error.
func TestTestVerifyParamsRange(t *testing.T) {
	const file = "testdata/verify/margin.test.hcl"
	if out, _, code := runCLI(t, "", "test", "--verify", file); code != 0 {
		t.Fatalf("test --verify: exit %d, want 0\n%s", code, out)
	}
	out, _, code := runCLI(t, "", "test", "--verify", "--params", "range", file)
	if code != 1 || !strings.Contains(out, "  failed     cap=1") || !strings.Contains(out, "margin (for testdata/verify/margin.test.hcl): failed over its params' range") {
		t.Errorf("test --verify --params range: exit %d, want 1 failing at cap=1\n%s", code, out)
	}
	if _, _, code := runCLI(t, "", "test", "--params", "range", file); code != 2 {
		t.Errorf("--params range without --verify: exit %d, want 2", code)
	}
}

// With no argument the policy in force is swept, each value loaded as Pi
// would load it with that param set too.
func TestVerifyParamsRangeInForce(t *testing.T) {
	src, err := os.ReadFile("testdata/verify/margin.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/.resetpolicy.hcl", src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Chdir(dir)
	out, errOut, code := runCLI(t, "", "verify", "--params", "range")
	if code != 1 || !strings.Contains(out, "  failed     cap=1") || !strings.Contains(errOut, "1 of 1 policies failed verification") {
		t.Errorf("exit %d, want 1 failing at cap=1 and counting one policy\n%s%s", code, out, errOut)
	}
}
