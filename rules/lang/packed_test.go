package lang

import (
	"fmt"
	"testing"
)

// packedEnv has two bool facts, an enum, and a bool and an enum past what
// Frame.Bits and Frame.Codes hold, which are read from the facts instead.
func packedEnv() (*Env, []Value) {
	env := &Env{EventName: "turn_end"}
	facts := make([]Value, MaxBitFacts+2)
	add := func(name string, t Type, enum []string, i int, v Value) {
		env.Event = append(env.Event, Field{Name: name, Type: t, Enum: enum, Index: i})
		facts[i] = v
	}
	outcomes := []string{"completed", "error", "aborted"}
	add("a", Bool, nil, 0, Value{Bool: true})
	add("b", Bool, nil, 1, Value{Bool: false})
	add("outcome", String, outcomes, 2, Value{Str: "error", Num: 1})
	add("tokens", Int, nil, 3, Value{Num: 1e9 + 7}) // packs nonsense codes no program reads
	add("far", Bool, nil, MaxBitFacts, Value{Bool: true})
	add("far_outcome", String, outcomes, MaxBitFacts+1, Value{Str: "aborted", Num: 2})
	return env, facts
}

// TestPackedFactsReadAsTheFacts: a guard on bool and enum facts reads them
// from the frame's packed bits and codes, and decides as if it read the
// facts, for facts inside and past what is packed, alone, negated and fused
// in a conjunction (a && !a fuses to nothing and stays false).
func TestPackedFactsReadAsTheFacts(t *testing.T) {
	env, facts := packedEnv()
	cases := []struct {
		src  string
		want bool
		bits bool // the program is one mask test
	}{
		{"event.a", true, true},
		{"event.b", false, true},
		{"!event.a", false, true},
		{"!event.b", true, true},
		{"event.a && !event.b", true, true},
		{"!event.b && event.a", true, true},
		{"event.a && event.b", false, true},
		{"event.a && !event.a", false, false},
		{"!event.b && event.a && !event.b", true, false},
		{"event.far", true, false},
		{"!event.far", false, false},
		{"event.a && event.far", true, false},
		{"event.outcome == 'error'", true, false},
		{"event.outcome != 'error'", false, false},
		{"event.outcome == 'completed'", false, false},
		{"event.outcome in ['aborted', 'error']", true, false},
		{"event.far_outcome == 'aborted'", true, false},
		{"event.far_outcome == 'error'", false, false},
		{"event.a && event.outcome == 'error' && !event.b", true, false},
		{"event.tokens > 1e9", true, false},
	}
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		f := NewFrame(facts, nil)
		if got := p.B(&f); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.src, got, tc.want)
		}
		if (p.Bits != nil) != tc.bits {
			t.Errorf("%s: mask test %v, want %v", tc.src, p.Bits, tc.bits)
		}
	}
}

// TestPackMatchesFacts: the bits and codes of every packed fact are the
// fact's bool and enum index.
func TestPackMatchesFacts(t *testing.T) {
	_, facts := packedEnv()
	p := Pack(facts)
	for i := range MaxBitFacts {
		if got := p.Bits>>uint(i)&1 == 1; got != facts[i].Bool {
			t.Errorf("bit %d = %v, fact %v", i, got, facts[i].Bool)
		}
	}
	if got := p.Codes >> 8 & 15; got != 1 {
		t.Errorf("code of outcome = %d, want 1", got)
	}
	if s := fmt.Sprint(NewFrame(facts, nil).Bits); s != fmt.Sprint(p.Bits) {
		t.Errorf("NewFrame bits %s, Pack %d", s, p.Bits)
	}
}

// TestPackedSetIsPack: updating one fact's packing, its bit and its code,
// gives what packing the facts afresh gives, for every fact, inside and
// past what is packed.
func TestPackedSetIsPack(t *testing.T) {
	_, facts := packedEnv()
	p := Pack(facts)
	for i, v := range []Value{{Bool: true}, {Num: 3}, {Num: 1e9}, {Num: -1}, {}, {Bool: true, Num: 15}} {
		for fi := range facts {
			facts[fi] = v
			p.SetBit(fi, v.Bool)
			p.SetCode(fi, v.Num)
			if want := Pack(facts); p != want {
				t.Fatalf("value %d at fact %d: SetBit and SetCode give %+v, Pack %+v", i, fi, p, want)
			}
		}
	}
}

// TestMaskedLeftSide: && and || with a left side that tests bool facts,
// which is tested in place, decide as Go's operators on the two sides,
// for every value of the facts.
func TestMaskedLeftSide(t *testing.T) {
	env, facts := packedEnv()
	for _, tc := range []struct {
		src string
		is  func(a, b, big bool) bool
	}{
		{"event.a && event.tokens > 1e9", func(a, b, big bool) bool { return a && big }},
		{"event.a || event.tokens > 1e9", func(a, b, big bool) bool { return a || big }},
		{"!event.a || event.tokens > 1e9", func(a, b, big bool) bool { return !a || big }},
		{"(event.a && !event.b) || event.tokens > 1e9", func(a, b, big bool) bool { return a && !b || big }},
		{"!event.b && event.tokens > 1e9", func(a, b, big bool) bool { return !b && big }},
	} {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		for x := range 8 {
			a, b, big := x&1 != 0, x&2 != 0, x&4 != 0
			fs := append([]Value(nil), facts...)
			fs[0], fs[1], fs[3] = Value{Bool: a}, Value{Bool: b}, Value{Num: 5}
			if big {
				fs[3].Num = 2e9
			}
			f := NewFrame(fs, nil)
			if got, want := p.B(&f), tc.is(a, b, big); got != want {
				t.Errorf("%s with a=%v b=%v tokens=%v: %v, want %v", tc.src, a, b, fs[3].Num, got, want)
			}
		}
	}
}
