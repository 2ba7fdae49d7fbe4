package testfile

import (
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

func TestParamText(t *testing.T) {
	huge, _, _ := big.ParseFloat("123456789012345678901234567890", 10, 512, big.ToNearestEven)
	tests := []struct {
		name    string
		value   cty.Value
		want    string
		wantErr string
	}{
		{"string as it is", cty.StringVal("a b"), "a b", ""},
		{"whole number", cty.NumberIntVal(12288), "12288", ""},
		{"fraction", cty.NumberFloatVal(0.8), "0.8", ""},
		{"big number exact", cty.NumberVal(huge), "123456789012345678901234567890", ""},
		{"negative", cty.NumberIntVal(-5), "-5", ""},
		{"bool", cty.True, "true", ""},
		{"tuple of numbers in HCL syntax", cty.TupleVal([]cty.Value{cty.NumberIntVal(5000), cty.NumberIntVal(10000)}), "[5000, 10000]", ""},
		{"list of strings quoted", cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal(`b"${x}`)}), `["a", "b\"$${x}"]`, ""},
		{"empty tuple", cty.EmptyTupleVal, "[]", ""},
		{"null", cty.NullVal(cty.String), "", "null"},
		{"object", cty.ObjectVal(map[string]cty.Value{"a": cty.True}), "", "not object"},
		{"nested list", cty.TupleVal([]cty.Value{cty.EmptyTupleVal}), "", "list elements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParamText(tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParamText = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// oneEvent parses a file with one run holding the given event block.
func oneEvent(t *testing.T, event string) (*Event, hcl.Diagnostics) {
	t.Helper()
	src := "policy = \"p\"\nrun \"r\" {\n" + event + "\n}\n"
	f, diags := Parse([]byte(src), "x.test.hcl")
	if len(f.Runs) == 0 || len(f.Runs[0].Events) == 0 {
		return nil, diags
	}
	return f.Runs[0].Events[0], diags
}

func TestEventFacts(t *testing.T) {
	tests := []struct {
		name  string
		event string
		json  string
	}{
		{"omitted facts are left to the contract's defaults", `event "turn_end" {}`, `{"event":"turn_end"}`},
		{"facts in source order with contract types", `event "turn_end" {
			outcome = "aborted"
			tokens = 171328
			synthetic_abort = true
		}`, `{"event":"turn_end","outcome":"aborted","tokens":171328,"synthetic_abort":true}`},
		{"common facts on any event", `event "request" {
			window_id = "w2"
			now_ms = 10000
		}`, `{"event":"request","window_id":"w2","now_ms":10000}`},
		{"tool args object", `event "tool" {
			name = "self-compact"
			args = { note = "x", n = 2 }
		}`, `{"event":"tool","name":"self-compact","args":{"n":2,"note":"x"}}`},
		{"an event that expects an error keeps a wrong fact as written", `event "turn_end" {
			tokens = "oops"
			nonsense = 1
			expect { error = "tokens" }
		}`, `{"event":"turn_end","tokens":"oops","nonsense":1}`},
		{"an expected error allows an unknown event", `event "turn_done" {
			expect { error = "unknown event" }
		}`, `{"event":"turn_done"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, diags := oneEvent(t, tt.event)
			if diags.HasErrors() {
				t.Fatalf("diagnostics: %v", diags)
			}
			if got := string(ev.JSON()); got != tt.json {
				t.Errorf("JSON = %s, want %s", got, tt.json)
			}
		})
	}
}

func TestDiagnosticPositions(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		summary string
		line    int
		col     int
	}{
		{"missing policy", "run \"r\" {}\n", "Missing required argument", 1, 1},
		{"unknown fact", "policy = \"p\"\nrun \"r\" {\n  event \"turn_end\" {\n    tokenz = 5\n  }\n}\n", "Unknown fact", 4, 5},
		{"int fact given a fraction", "policy = \"p\"\nrun \"r\" {\n  event \"turn_end\" {\n    tokens = 1.5\n  }\n}\n", "Invalid fact value", 4, 14},
		{"enum fact outside its values", "policy = \"p\"\nrun \"r\" {\n  event \"before_compact\" {\n    reason = \"auto\"\n  }\n}\n", "Invalid fact value", 4, 14},
		{"unknown event", "policy = \"p\"\nrun \"r\" {\n  event \"turn\" {}\n}\n", "Unknown event", 3, 9},
		{"unknown effect argument", "policy = \"p\"\nrun \"r\" {\n  event \"request\" {\n    expect { effects = [{ effect = \"reply\", txt = \"a\" }] }\n  }\n}\n", "Unknown effect argument", 4, 45},
		{"state not an object", "policy = \"p\"\nrun \"r\" {\n  state = [1]\n}\n", "Invalid state", 3, 11},
		{"slot value not a scalar", "policy = \"p\"\nrun \"r\" {\n  expect { state = { a = [1] } }\n}\n", "Invalid slot value", 3, 26},
		{"assert error column in a quoted string", "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"len(decisions) > nope\" }\n}\n", "Invalid assert condition", 3, 42},
		{"assert error column after escapes", "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"\\\"a\\\" == \\\"a\\\" && nope\" }\n}\n", "Invalid assert condition", 3, 43},
		{"assert error column after multibyte runes", "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"'é' == 'é' && nope\" }\n}\n", "Invalid assert condition", 3, 39},
		{"assert error after an escaped newline", "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"true &&\\n  nope\" }\n}\n", "Invalid assert condition", 3, 36},
		{"assert error in an indented heredoc", "policy = \"p\"\nrun \"r\" {\n  assert {\n    condition = <<-EOT\n      true &&\n        nope\n    EOT\n  }\n}\n", "Invalid assert condition", 6, 9},
		{"assert condition not bool", "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"1 + 1\" }\n}\n", "Invalid assert condition", 3, 24},
		{"duplicate run", "policy = \"p\"\nrun \"r\" {}\nrun \"r\" {}\n", "Duplicate run", 3, 5},
		{"duplicate key", "policy = \"p\"\nparams = { a = 1, a = 2 }\nrun \"r\" {}\n", "Duplicate key", 2, 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse([]byte(tt.src), "x.test.hcl")
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			for _, d := range diags {
				if d.Summary != tt.summary {
					continue
				}
				if d.Subject == nil || d.Subject.Filename != "x.test.hcl" || d.Subject.Start.Line != tt.line || d.Subject.Start.Column != tt.col {
					t.Fatalf("%q at %v, want x.test.hcl:%d:%d", d.Summary, d.Subject, tt.line, tt.col)
				}
				return
			}
			t.Fatalf("no %q diagnostic in %v", tt.summary, diags)
		})
	}
}

func TestExpectations(t *testing.T) {
	src := `policy = "p"
run "r" {
  state = { request = "none", count = 2, armed = true }
  event "turn_end" {
    expect {
      rules           = []
      effects         = [{ effect = "commit_reset", continue = true }, { effect = "continue" }]
      effects_contain = [{ effect = "compact", attempt = 2 }]
      error           = "tokens"
      state           = { request = "tool-requested" }
    }
  }
  expect {
    state = { overflow = "idle" }
  }
  assert {
    condition     = "last.rules == []"
    error_message = "m"
  }
}
`
	f, diags := Parse([]byte(src), "x.test.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	run := f.Runs[0]
	if got, want := SlotMap(run.State), map[string]any{"request": "none", "count": 2.0, "armed": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("start state = %v, want %v", got, want)
	}
	ex := run.Events[0].Expect
	if ex.Rules == nil || ex.Rules.Names == nil || len(ex.Rules.Names) != 0 {
		t.Errorf("rules = [] must be an expectation of no rule, got %#v", ex.Rules)
	}
	wantEffects := []EffectSpec{
		{Name: "commit_reset", Args: []ArgSpec{{"continue", true}}},
		{Name: "continue"},
	}
	for i := range ex.Effects.Effects {
		ex.Effects.Effects[i].Range = hcl.Range{}
	}
	if !reflect.DeepEqual(ex.Effects.Effects, wantEffects) {
		t.Errorf("effects = %#v, want %#v", ex.Effects.Effects, wantEffects)
	}
	if got := ex.EffectsContain.Effects[0].Args; !reflect.DeepEqual(got, []ArgSpec{{"attempt", 2.0}}) {
		t.Errorf("effects_contain args = %#v", got)
	}
	if ex.Error.Substring != "tokens" {
		t.Errorf("error = %q", ex.Error.Substring)
	}
	if SlotMap(ex.State.Slots)["request"] != "tool-requested" {
		t.Errorf("event state = %v", ex.State.Slots)
	}
	if SlotMap(run.Expect.State.Slots)["overflow"] != "idle" {
		t.Errorf("final state = %v", run.Expect.State.Slots)
	}
	if len(run.Asserts) != 1 || run.Asserts[0].ErrorMessage != "m" {
		t.Errorf("asserts = %#v", run.Asserts)
	}
}

func TestOverrides(t *testing.T) {
	src := `policy = "p"
params = { warning_runway = 8192, reserve_margin = 10 }
run "a" {
  params = { reserve_margin = 0, delays = [5000, 10000] }
}
run "b" {}
`
	f, diags := Parse([]byte(src), "x.test.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		run  *Run
		want map[string]string
	}{
		{f.Runs[0], map[string]string{"warning_runway": "8192", "reserve_margin": "0", "delays": "[5000, 10000]"}},
		{f.Runs[1], map[string]string{"warning_runway": "8192", "reserve_margin": "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.run.Name, func(t *testing.T) {
			got := map[string]string{}
			for _, ov := range f.Overrides(tt.run) {
				if ov.Range == nil || ov.Range.Filename != "x.test.hcl" {
					t.Errorf("override %s has no range in the test file", ov.Name)
				}
				got[ov.Name] = ov.Raw // later overrides win, as in the loader
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("overrides = %v, want %v", got, tt.want)
			}
		})
	}
	if f.OverridesKey(f.Runs[0]) == f.OverridesKey(f.Runs[1]) {
		t.Error("runs with different overrides share a cache key")
	}
}

func TestPolicyFile(t *testing.T) {
	tests := []struct {
		policy, filename, want string
	}{
		{"wipe_memory", "policies/wipe_memory.test.hcl", ""},
		{"tiny.hcl", "testdata/testrun/tiny.test.hcl", filepath.FromSlash("testdata/testrun/tiny.hcl")},
		{"../p/x.hcl", "a/b.test.hcl", filepath.FromSlash("p/x.hcl")},
		{"sub/policy", "b.test.hcl", filepath.FromSlash("sub/policy")},
	}
	for _, tt := range tests {
		f := &File{Policy: tt.policy, Filename: tt.filename}
		if got := f.PolicyFile(); got != tt.want {
			t.Errorf("policy %q in %s: PolicyFile = %q, want %q", tt.policy, tt.filename, got, tt.want)
		}
	}
}

func TestAssertEval(t *testing.T) {
	decisions := []any{
		map[string]any{"event": "tool", "rules": []any{"a"}, "effects": []any{map[string]any{"effect": "reply", "text": "ok"}}, "error": "", "state": map[string]any{}},
		map[string]any{"event": "turn_end", "rules": []any{}, "effects": []any{}, "error": "", "state": map[string]any{}},
	}
	state := map[string]any{"request": "none", "count": 2.0}
	tests := []struct {
		cond    string
		want    bool
		wantErr bool
	}{
		{"len(decisions) == 2 && last.rules == []", true, false},
		{"decisions[0].effects[0].text == 'ok'", true, false},
		{"state.request == 'none' && state.count == 2", true, false},
		{"last.event == 'tool'", false, false},
		{"decisions[5].rules == []", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			src := "policy = \"p\"\nrun \"r\" {\n  assert { condition = \"" + tt.cond + "\" }\n}\n"
			f, diags := Parse([]byte(src), "x.test.hcl")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got, err := f.Runs[0].Asserts[0].Eval(AssertEnv(decisions, state))
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Eval = %v, %v; want %v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	t.Run("no events", func(t *testing.T) {
		env := AssertEnv(nil, nil)
		if l, ok := env["last"].(map[string]any); !ok || len(l) != 0 {
			t.Errorf("last = %#v, want an empty map", env["last"])
		}
	})
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"a.test.hcl", "a.hcl", "sub/b.test.hcl", "_fixtures/c.test.hcl",
		".hidden/d.test.hcl", "node_modules/e.test.hcl", "sub/deeper/f.test.hcl",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
		got[i] = filepath.ToSlash(got[i])
	}
	want := []string{"a.test.hcl", "sub/b.test.hcl", "sub/deeper/f.test.hcl"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find = %v, want %v", got, want)
	}
	// A directory named explicitly is searched even if it starts with "_".
	got, err = Find(filepath.Join(dir, "_fixtures"))
	if err != nil || len(got) != 1 {
		t.Errorf("Find(_fixtures) = %v, %v; want its one file", got, err)
	}
}
