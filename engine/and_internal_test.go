package engine

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// TestAndIsItsParts: and's closure, whatever its shape (a mask test first
// and one or two parts after it, neighbouring mask tests fused, a mask
// test later, four parts, masks only), decides as its parts tested in
// turn, for every value of the facts they read.
func TestAndIsItsParts(t *testing.T) {
	env := &lang.Env{EventName: "turn_end", Event: []lang.Field{
		{Name: "a", Type: lang.Bool, Index: 0},
		{Name: "b", Type: lang.Bool, Index: 1},
		{Name: "n", Type: lang.Int, Index: 2},
		{Name: "m", Type: lang.Int, Index: 3},
	}}
	for _, guard := range []string{
		"event.a && event.n > 5",
		"!event.a && event.n > 5 && event.m > 5",
		"event.a && !event.b && event.n > 5",
		"event.n > 5 && event.a",
		"event.a && event.n > 5 && event.b && event.m > 5",
		"event.a && event.b",
		"event.n > 5 && event.m > 5 && !event.b",
	} {
		var parts []*lang.Program
		for _, src := range strings.Split(guard, " && ") {
			p, err := lang.Compile(src, env)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		when := and(parts)
		for x := range 16 {
			facts := []lang.Value{{Bool: x&1 != 0}, {Bool: x&2 != 0}, {Num: float64(x & 4 * 2)}, {Num: float64(x & 8)}}
			f := lang.NewFrame(facts, nil)
			want := true
			for _, p := range parts {
				want = want && p.B(&f)
			}
			if got := when == nil || when(&f); got != want {
				t.Errorf("%s with a=%v b=%v n=%v m=%v: %v, want %v", guard, facts[0].Bool, facts[1].Bool, facts[2].Num, facts[3].Num, got, want)
			}
		}
	}
}

// A part that is an && chain runs as its steps, not by its own closure,
// which would cost a call for the chain and one for each of its
// conjuncts: here the part's closure would fail the test, and its steps
// decide.
func TestAndRunsAChainAsItsSteps(t *testing.T) {
	env := &lang.Env{EventName: "turn_end", Event: []lang.Field{
		{Name: "a", Type: lang.Bool, Index: 0},
		{Name: "n", Type: lang.Int, Index: 1},
	}}
	chain, err := lang.Compile("event.a && event.n > 5", env)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(chain.Steps))
	}
	part := *chain
	part.B = func(*lang.Frame) bool { t.Error("the chain's own closure ran"); return false }
	when := and([]*lang.Program{&part})
	for x := range 4 {
		f := lang.NewFrame([]lang.Value{{Bool: x&1 != 0}, {Num: float64(x&2) * 5}}, nil)
		if got, want := when(&f), chain.B(&f); got != want {
			t.Errorf("a=%v n=%v: %v, want %v", x&1 != 0, x&2*5, got, want)
		}
	}
}
