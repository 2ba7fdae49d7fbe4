package lang

import (
	"strings"
	"testing"
)

func testEnv() *Env {
	return &Env{
		EventName: "turn_end",
		Event: []Field{
			{Name: "tokens", Type: Int, Index: 0},
			{Name: "outcome", Type: String, Enum: []string{"completed", "error", "aborted"}, Index: 1},
			{Name: "idle", Type: Bool, Index: 2},
			{Name: "args", Type: Object, Index: 3},
			{Name: "text", Type: String, Index: 4},
		},
		State: []Field{
			{Name: "phase", Type: String, Enum: []string{"none", "close-out"}, Index: 0},
			{Name: "failures", Type: Int, Index: 1},
		},
		Params: []Const{
			{Name: "runway", Type: Float, Value: Value{Num: 100}},
			{Name: "delays", Type: ListNum, Value: Value{X: []float64{5, 10, 20}}},
		},
		Messages: []Const{{Name: "ack", Type: String, Value: Value{Str: "ok"}}},
	}
}

func testFrame() *Frame {
	f := NewFrame(
		[]Value{{Num: 950}, {Str: "completed"}, {Bool: true}, {X: map[string]any{"reason": "full"}}, {Str: "set force 2000"}},
		[]Value{{Str: "none"}, {Num: 1}},
	)
	return &f
}

// evalCases are expressions over testEnv and what they evaluate to on
// testFrame.
var evalCases = []struct {
	src  string
	want any
}{
	{"event.tokens + param.runway >= 1000", true},
	{"event.outcome == 'completed' && state.phase == 'none'", true},
	{"!event.idle || event.tokens > 1000", false},
	{"state.phase in ['none', 'close-out']", true},
	{"min(param.runway, 270000, 0.8 * event.tokens)", 100.0},
	{"max(1, 2, 3)", 3.0},
	{"param.delays[state.failures]", 10.0},
	{"param.delays[-1]", 20.0},
	{"event.args.reason == 'full'", true},
	{"event.args.missing == nil", true},
	{"message.ack + '!'", "ok!"},
	{"field(event.text, 2)", "2000"},
	{"int(field(event.text, 2)) + 1", 2001.0},
	{"nfields(event.text)", 3.0},
	{"event.text matches '^set (force|notice) [0-9]+$'", true},
	{"event.idle ? 'turn' : 'steer'", "turn"},
	{"len(event.text)", 14.0},
	{"event.text startsWith 'set'", true},
	{"string(event.tokens)", "950"},
	{"event.tokens / 2", 475.0},
	{"event.tokens % 7", 5.0},
	{"len(param.delays) < 5 || param.delays[7] > 0", true},
	{"len(param.delays) > 5 ? param.delays[7] : 1", 1.0},
}

func TestCompileEvaluates(t *testing.T) {
	for _, tc := range evalCases {
		p, err := Compile(tc.src, testEnv())
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		f := testFrame()
		got := p.Eval(f).Interface(p.Type)
		if f.Err != nil {
			t.Errorf("%s: runtime error %v", tc.src, f.Err)
		}
		if got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.src, got, tc.want)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	cases := []struct {
		src    string
		offset int
		msg    string
	}{
		{"event.tokenz > 0", 6, `event turn_end has no fact "tokenz"; did you mean "tokens"?`},
		{"state.phaze == 'none'", 6, `unknown slot "phaze"`},
		{"param.runwya > 0", 6, `unknown param "runwya"`},
		{"message.ak", 8, `unknown message "ak"`},
		{"event.outcome == 'complete'", 17, `"complete" is not a value of event.outcome`},
		{"state.phase in ['none', 'closeout']", 15, `"closeout" is not a value of state.phase`},
		{"event.tokens == 'x'", 13, "mismatched types"},
		{"frobnicate(1)", 0, `unknown function "frobnicate"`},
		{"event.tokens > 0 && ", 19, "unexpected token"},
		{"filter([1,2], # > 1)", 14, "a predicate (closure) is not supported"},
		{"tokens > 0", 0, `unknown name "tokens"`},
		{"upper(1)", 6, "cannot use int as argument"},
		{"event.text matches event.text", 25, "must be a constant"},
		{strings.Repeat("1 + ", 600) + "1", 0, "the limit is 2048"},
		{strings.Repeat("1 + ", 300) + "1", 0, "more than 256 syntax nodes"},
	}
	for _, tc := range cases {
		_, err := Compile(tc.src, testEnv())
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: got %v, want an *Error", tc.src, err)
			continue
		}
		if !strings.Contains(e.Msg, tc.msg) || e.Offset != tc.offset {
			t.Errorf("%s: got %d %q, want %d %q", tc.src, e.Offset, e.Msg, tc.offset, tc.msg)
		}
	}
}

func TestRuntimeErrorsDoNotPanic(t *testing.T) {
	for _, src := range []string{"param.delays[state.failures + 5] > 0", "int(event.text) > 0", "event.tokens / (state.failures - 1) > 0"} {
		p, err := Compile(src, testEnv())
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		f := testFrame()
		p.B(f)
		if f.Err == nil {
			t.Errorf("%s: want a runtime error", src)
		}
	}
}

func TestConjunctsForExplanations(t *testing.T) {
	p, err := Compile("event.idle && state.failures > 0 && event.outcome == 'completed'", testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != 3 || p.Parts[1].Source != "state.failures > 0" {
		t.Fatalf("parts = %d, %q", len(p.Parts), p.Parts[1].Source)
	}
}

// TestWeightCountsNodes: a program's weight is the number of its syntax
// nodes, plus the weight of each derived value it computes inline (one
// kept in the frame, or folded to a constant, counts as one node).
func TestWeightCountsNodes(t *testing.T) {
	inlined, err := Compile("event.tokens + 1", testEnv())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Top = []Binding{{Name: "inlined", Prog: inlined}, {Name: "kept", Prog: inlined, Memo: 1}}
	cases := []struct {
		src  string
		want int
	}{
		{"event.tokens", 3}, // member: the namespace, the property
		{"event.tokens > 1", 5},
		{"!event.idle", 4},
		{"-event.tokens < param.runway * 2", 10},
		{"event.idle ? 1 : 2", 6},
		{"inlined > 3", 3 + inlined.Weight},
		{"kept > 3", 3},
		{"len(event.text) > 0", 6},
	}
	for _, c := range cases {
		p, err := Compile(c.src, env)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if p.Weight != c.want {
			t.Errorf("%s: weight %d, want %d", c.src, p.Weight, c.want)
		}
	}
	if inlined.Weight != 5 {
		t.Errorf("event.tokens + 1: weight %d, want 5", inlined.Weight)
	}
}
