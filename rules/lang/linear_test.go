package lang

import (
	"math"
	"testing"
)

func linearEnv() *Env {
	return &Env{
		EventName: "request",
		Event: []Field{
			{Name: "a", Type: Int, Index: 0},
			{Name: "b", Type: Float, Index: 1},
			{Name: "c", Type: Int, Index: 2},
		},
		State:  []Field{{Name: "n", Type: Int, Index: 0}},
		Params: []Const{{Name: "k", Type: Int, Value: Value{Num: 2}}, {Name: "half", Type: Float, Value: Value{Num: 0.5}}},
	}
}

// A comparison read in place (linearCompare) must decide what comparing
// the two sides' own values decides, for every shape of side it takes,
// every operator, and values at the edges of float arithmetic: zeros of
// both signs, the largest float (whose sums overflow), infinities and NaN.
func TestLinearCompareIsTheComparison(t *testing.T) {
	env := linearEnv()
	sides := []string{
		"event.a", "event.b", "5", "param.half",
		"event.a + param.k", "event.a - param.k", "param.k + event.b", "param.k - event.b",
		"event.a * param.half", "param.half * event.b", "event.b * 0",
		"event.a + event.b", "event.a - event.b", "event.b - event.b",
		"(event.a - event.b) + param.k", "(event.a - event.b) - param.half", "param.k + (event.a + event.c)",
		"event.b * param.half + param.k", "param.k + event.a * param.half", "(param.k - event.b) - param.half",
		// shapes without a linear form, compared by the general closures
		"(event.a + param.k) + param.half", "event.a * event.b", "state.n + event.a",
	}
	values := []float64{0, math.Copysign(0, -1), 1, -2.5, 0.5, 3, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	frames := []Frame{}
	for _, a := range values {
		for _, b := range values {
			c := values[(len(frames)*7)%len(values)]
			frames = append(frames, NewFrame([]Value{{Num: a}, {Num: b}, {Num: c}}, []Value{{Num: 4}}))
		}
	}
	ops := map[string]func(x, y float64) bool{
		"<": func(x, y float64) bool { return x < y }, "<=": func(x, y float64) bool { return x <= y },
		">": func(x, y float64) bool { return x > y }, ">=": func(x, y float64) bool { return x >= y },
		"==": func(x, y float64) bool { return x == y }, "!=": func(x, y float64) bool { return x != y },
	}
	progs := map[string]*Program{}
	for _, s := range sides {
		p, err := Compile(s, env)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		progs[s] = p
	}
	checked := 0
	for _, l := range sides {
		for _, r := range sides {
			if progs[l].Const != nil && progs[r].Const != nil {
				continue
			}
			for op, want := range ops {
				src := "(" + l + ") " + op + " (" + r + ")"
				p, err := Compile(src, env)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				for i := range frames {
					f := &frames[i]
					x, y := progs[l].Eval(f).Num, progs[r].Eval(f).Num
					if got := p.B(f); got != want(x, y) {
						t.Fatalf("%s with a=%v b=%v c=%v: %v, want %v (%v %s %v)", src, f.Facts[0].Num, f.Facts[1].Num, f.Facts[2].Num, got, want(x, y), x, op, y)
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing compared")
	}
}

// Which numbers have a linear form: only those it computes exactly as
// written. A constant added to a sum that already holds one would be
// added in another order, a product of two facts is not linear, and a
// slot is not an event fact.
func TestLinearForms(t *testing.T) {
	env := linearEnv()
	inlined, err := Compile("event.a - event.b", linearEnv())
	if err != nil {
		t.Fatal(err)
	}
	env.Top = []Binding{{Name: "remaining", Prog: inlined}, {Name: "kept", Prog: inlined, Memo: 1}}
	cases := []struct {
		src  string
		want bool
	}{
		{"event.a", true},
		{"event.a + param.k", true},
		{"param.k - event.a", true},
		{"event.b * param.half", true},
		{"event.a - event.b", true},
		{"(event.a - event.b) + param.k", true},
		{"param.k + (event.a - event.b)", true},
		{"event.b * param.half + param.k", true},
		{"(param.k - event.a) - param.half", false}, // holds a constant already
		{"(event.b * param.half) * param.k", false},
		{"remaining", true},
		{"remaining - param.k", true},
		{"kept", false}, // kept in the frame: read through its memo
		{"(event.a + param.k) + param.k", false},
		{"(event.a - event.b) + param.k - 1", false},
		{"param.k - (event.a - event.b)", false},
		{"event.a * event.b", false},
		{"(event.a - event.b) * param.k", false},
		{"state.n + 1", false},
		{"event.a / param.k", false},
		{"-event.a", false},
	}
	for _, c := range cases {
		p, err := Compile(c.src, env)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := p.lin != nil; got != c.want {
			t.Errorf("%s: linear form %v, want %v", c.src, got, c.want)
		}
	}
}

// Steps open up the && chains of derived values computed in place, in
// order, and run as the program runs: the same result, and the same
// error from the same conjunct.
func TestStepsAreTheChain(t *testing.T) {
	env := stepsEnv()
	due, err := Compile("event.auto && event.tokens >= param.k", stepsEnv())
	if err != nil {
		t.Fatal(err)
	}
	env.Top = []Binding{{Name: "due", Prog: due}, {Name: "kept", Prog: due, Memo: 1}}
	cases := []struct {
		src   string
		steps int
	}{
		{"event.on && due && state.w != event.window", 4},
		{"event.on && kept && state.w != event.window", 3}, // a kept value is one step
		{"due", 2},
		{"event.on && event.auto", 0}, // one mask test, no chain
		{"event.on || due", 0},
		{"event.on && 10 / state.d > 1 && due", 4},
	}
	frames := []Frame{}
	for _, on := range []bool{false, true} {
		for _, auto := range []bool{false, true} {
			for _, tokens := range []float64{5, 10, 15} {
				for _, d := range []float64{0, 2} {
					f := NewFrame([]Value{{Bool: on}, {Bool: auto}, {Num: tokens}, {Str: "x"}}, []Value{{Str: "y"}, {Num: d}})
					frames = append(frames, f)
				}
			}
		}
	}
	for _, c := range cases {
		p, err := Compile(c.src, env)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if len(p.Steps) != c.steps {
			t.Fatalf("%s: %d steps, want %d", c.src, len(p.Steps), c.steps)
		}
		if c.steps == 0 {
			continue
		}
		for i := range frames {
			f1, f2 := frames[i], frames[i]
			want := p.B(&f1)
			got := true
			for _, s := range p.Steps {
				if !s.B(&f2) {
					got = false
					break
				}
			}
			if got != want || (f1.Err == nil) != (f2.Err == nil) {
				t.Errorf("%s, frame %d: steps %v (error %v), B %v (error %v)", c.src, i, got, f2.Err, want, f1.Err)
			}
		}
	}
}

func stepsEnv() *Env {
	return &Env{
		EventName: "request",
		Event: []Field{
			{Name: "on", Type: Bool, Index: 0},
			{Name: "auto", Type: Bool, Index: 1},
			{Name: "tokens", Type: Int, Index: 2},
			{Name: "window", Type: String, Index: 3},
		},
		State:  []Field{{Name: "w", Type: String, Index: 0}, {Name: "d", Type: Int, Index: 1}},
		Params: []Const{{Name: "k", Type: Int, Value: Value{Num: 10}}},
	}
}

// Each equality that reads a fact or slot in place has its inequality in
// the same closure (equal with neg): l != r must be the negation of l ==
// r, and l == r what the two sides' values say, for every shape; only an
// equality dispatches (Lit).
func TestEqualityBothWays(t *testing.T) {
	abc, xy := []string{"a", "b", "c"}, []string{"x", "y"}
	event := []Field{
		{Name: "e0", Type: String, Enum: abc, Index: 0},
		{Name: "s1", Type: String, Index: 1},
		{Name: "s2", Type: String, Index: 2},
		{Name: "o3", Type: Object, Index: 3},
		{Name: "b4", Type: Bool, Index: 4},
		{Name: "b5", Type: Bool, Index: 5},
	}
	for i := 6; i < 16; i++ {
		event = append(event, Field{Name: "n" + string(rune('a'+i)), Type: Int, Index: i})
	}
	// past MaxCodeFacts: read from the facts, not the codes
	event = append(event, Field{Name: "e16", Type: String, Enum: abc, Index: 16})
	env := &Env{
		EventName: "request",
		Event:     event,
		State: []Field{
			{Name: "se0", Type: String, Enum: xy, Index: 0},
			{Name: "ss1", Type: String, Index: 1},
			{Name: "ss2", Type: String, Index: 2},
			{Name: "m3", Type: Int, Index: 3},
			{Name: "m4", Type: Int, Index: 4},
		},
	}
	pairs := []struct {
		l, r string
		lit  bool
	}{
		{"event.e0", "'b'", true},
		{"'b'", "event.e0", true},
		{"event.e16", "'b'", true},
		{"state.se0", "'y'", false},
		{"event.s1", "'v'", true},
		{"state.ss1", "'v'", false},
		{"event.s1", "event.s2", false},
		{"event.s1", "state.ss1", false},
		{"state.ss1", "event.s1", false},
		{"state.ss1", "state.ss2", false},
		{"event.s1 + 'x'", "'vx'", false},
		{"event.s1 + 'x'", "event.s2 + 'x'", false},
		{"event.b4", "event.b5", false},
		{"event.o3.k", "'v'", false},
		{"state.m3", "state.m4", false},
	}
	var frames []Frame
	for i, s1 := range []string{"v", "w"} {
		for j, s2 := range []string{"v", "w"} {
			for k := range 3 {
				facts := make([]Value, 17)
				facts[0] = Value{Str: abc[k], Num: float64(k)}
				facts[16] = Value{Str: abc[2-k], Num: float64(2 - k)}
				facts[1], facts[2] = Value{Str: s1}, Value{Str: s2}
				facts[3] = Value{X: map[string]any{"k": s2}}
				facts[4], facts[5] = Value{Bool: i == 0}, Value{Bool: j == k%2}
				state := []Value{{Str: xy[k%2], Num: float64(k % 2)}, {Str: s2}, {Str: s1}, {Num: float64(k)}, {Num: float64(i)}}
				frames = append(frames, NewFrame(facts, state))
			}
		}
	}
	for _, p := range pairs {
		l, err := Compile(p.l, env)
		if err != nil {
			t.Fatalf("%s: %v", p.l, err)
		}
		r, err := Compile(p.r, env)
		if err != nil {
			t.Fatalf("%s: %v", p.r, err)
		}
		eq, err := Compile(p.l+" == "+p.r, env)
		if err != nil {
			t.Fatalf("%s == %s: %v", p.l, p.r, err)
		}
		ne, err := Compile(p.l+" != "+p.r, env)
		if err != nil {
			t.Fatalf("%s != %s: %v", p.l, p.r, err)
		}
		if (eq.Lit != nil) != p.lit || ne.Lit != nil {
			t.Errorf("%s == %s: Lit %v, want %v; != Lit %v, want none", p.l, p.r, eq.Lit != nil, p.lit, ne.Lit != nil)
		}
		seen := map[bool]bool{}
		for i := range frames {
			f := &frames[i]
			want := dynEqual(l.Eval(f), r.Eval(f))
			seen[want] = true
			if got := eq.B(f); got != want {
				t.Errorf("%s == %s in frame %d: %v, want %v", p.l, p.r, i, got, want)
			}
			if got := ne.B(f); got != !want {
				t.Errorf("%s != %s in frame %d: %v, want %v", p.l, p.r, i, got, !want)
			}
		}
		if !seen[true] || !seen[false] {
			t.Errorf("%s == %s: the frames hold only %v", p.l, p.r, seen)
		}
	}
}

// Each shape of comparison read in place, at its boundary and one step
// past it, against answers worked by hand (param.k is 2): a sign lost in
// a side's form or an operator mirrored to its neighbour moves the
// boundary, whatever the evaluator of the sides says.
func TestLinearComparisonsAtTheirBoundaries(t *testing.T) {
	cases := []struct {
		src  string
		a, b float64
		want bool
	}{
		// a fact less a constant; a constant less a fact
		{"event.a - param.k <= 3", 5, 0, true},
		{"event.a - param.k <= 3", 6, 0, false},
		{"param.k - event.a >= 0", 2, 0, true},
		{"param.k - event.a >= 0", 3, 0, false},
		{"event.a + param.k < 5", 2, 0, true},
		{"event.a + param.k < 5", 3, 0, false},
		// a difference of facts, and a constant taken from it
		{"event.a - event.b < 0", 1, 2, true},
		{"event.a - event.b < 0", 2, 2, false},
		{"(event.a - event.b) - param.k > 0", 5, 2, true},
		{"(event.a - event.b) - param.k > 0", 4, 2, false},
		{"(event.a - event.b) + param.k >= 0", 1, 3, true},
		{"(event.a - event.b) + param.k >= 0", 0, 3, false},
		// a constant on the left is the mirrored comparison
		{"3 < event.a", 4, 0, true},
		{"3 < event.a", 3, 0, false},
		{"3 <= event.a", 3, 0, true},
		{"3 <= event.a", 2, 0, false},
		{"3 > event.a", 2, 0, true},
		{"3 > event.a", 3, 0, false},
		{"3 >= event.a", 3, 0, true},
		{"3 >= event.a", 4, 0, false},
		// a constant on the right
		{"event.a <= 3", 3, 0, true},
		{"event.a <= 3", 4, 0, false},
		{"event.a >= 3", 3, 0, true},
		{"event.a >= 3", 2, 0, false},
		// two forms
		{"event.a - event.b <= param.k - event.a", 2, 2, true},
		{"event.a - event.b <= param.k - event.a", 3, 2, false},
		{"event.a <= event.b", 2, 2, true},
		{"event.a >= event.b + param.k", 4, 2, true},
		{"event.a >= event.b + param.k", 3, 2, false},
	}
	env := linearEnv()
	for _, c := range cases {
		p, err := Compile(c.src, env)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		f := NewFrame([]Value{{Num: c.a}, {Num: c.b}, {Num: 0}}, []Value{{Num: 4}})
		if got := p.B(&f); got != c.want {
			t.Errorf("%s with a=%v b=%v: %v, want %v", c.src, c.a, c.b, got, c.want)
		}
	}
}
