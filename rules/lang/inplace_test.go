package lang

import "testing"

// Arithmetic on event facts and constants is read in place (inPlace); it
// must compute what the general closures compute, each operand on its
// side, for every operator and pair of operands it handles, and leave the
// others to the general closures.
func TestArithmeticInPlace(t *testing.T) {
	env := &Env{
		EventName: "request",
		Event: []Field{
			{Name: "a", Type: Int, Index: 0},
			{Name: "b", Type: Float, Index: 1},
		},
		State:  []Field{{Name: "n", Type: Int, Index: 0}},
		Params: []Const{{Name: "k", Type: Int, Value: Value{Num: 2}}},
	}
	f := NewFrame([]Value{{Num: 7}, {Num: 3.5}}, []Value{{Num: 5}})
	cases := []struct {
		src  string
		want float64
	}{
		{"event.a + event.b", 10.5},
		{"event.a - event.b", 3.5},
		{"event.a * event.b", 24.5},
		{"event.a + param.k", 9},
		{"event.a - param.k", 5},
		{"event.a * param.k", 14},
		{"param.k + event.b", 5.5},
		{"param.k - event.b", -1.5},
		{"param.k * event.b", 7},
		{"event.b - 10", -6.5},
		{"state.n - event.a", -2},
		{"event.a - (event.b - 1)", 4.5},
		{"event.a / param.k", 3.5},
	}
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := p.N(&f); got != tc.want || f.Err != nil {
			t.Errorf("%s = %v (error %v), want %v", tc.src, got, f.Err, tc.want)
		}
	}
}

// inPlace takes event facts and constants only: a slot, or a node that
// computes, is left to the general closures, as is an operator it lacks.
func TestInPlaceOperands(t *testing.T) {
	a := &Field{Name: "a", Type: Int, Index: 0}
	fact := fieldReader(true, a)
	fact.ref = &fieldRef{event: true, index: 0}
	slot := fieldReader(false, a)
	slot.ref = &fieldRef{index: 0}
	k := constant(Int, Value{Num: 2})
	computed := cnode{t: Int, n: func(*Frame) float64 { return 1 }}
	cases := []struct {
		name string
		op   string
		l, r cnode
		want bool
	}{
		{"fact - fact", "-", fact, fact, true},
		{"fact - constant", "-", fact, k, true},
		{"constant - fact", "-", k, fact, true},
		{"constant - constant", "-", k, k, false},
		{"slot - constant", "-", slot, k, false},
		{"fact - slot", "-", fact, slot, false},
		{"fact - computed", "-", fact, computed, false},
		{"computed - fact", "-", computed, fact, false},
		{"fact / constant", "/", fact, k, false},
	}
	for _, tc := range cases {
		if got := inPlace(tc.op, tc.l, tc.r) != nil; got != tc.want {
			t.Errorf("%s: read in place %v, want %v", tc.name, got, tc.want)
		}
	}
}
