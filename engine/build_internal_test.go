package engine

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// TestBuilderKeepsItsPack: the packed word a builder keeps as facts are
// set is the one lang.Pack makes of the facts, for every event kind,
// after every kind of set (bools both ways, numbers that are and are not
// enum codes, enum values, strings and objects over either) and after
// Reset.
func TestBuilderKeepsItsPack(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, ev := range contract.Events {
		b, err := NewEventBuilder(ev.Name)
		if err != nil {
			t.Fatal(err)
		}
		all := allFacts[b.kind]
		for n := 0; n < 2000; n++ {
			if rng.IntN(50) == 0 {
				b.Reset()
			}
			i := FactIndex(rng.IntN(len(all)))
			switch f := all[i]; f.Type {
			case contract.Bool:
				b.SetBool(i, rng.IntN(2) == 0)
			case contract.Int:
				b.SetInt(i, []int64{1, 7, 15, 16, 150000}[rng.IntN(5)])
			case contract.Object:
				b.SetObject(i, map[string]any{"n": 1.0})
			default:
				s := "w1"
				if len(f.Enum) > 0 {
					s = f.Enum[rng.IntN(len(f.Enum))]
				}
				if err := b.SetString(i, s); err != nil {
					t.Fatal(err)
				}
			}
			e, err := b.Event()
			if err != nil {
				t.Fatal(err)
			}
			if want := lang.Pack(e.facts); e.packed != want {
				t.Fatalf("%s after setting %s: packed %+v, Pack %+v", ev.Name, all[i].Name, e.packed, want)
			}
		}
	}
}

// TestBuilderChecksObjects: an object fact holding a number that is not
// finite is refused by Event, as a decoded event's is.
func TestBuilderChecksObjects(t *testing.T) {
	b, err := NewEventBuilder("tool")
	if err != nil {
		t.Fatal(err)
	}
	b.SetObject(b.MustIndex("args", contract.Object), map[string]any{"n": math.Inf(1)})
	if _, err := b.Event(); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Fatalf("an infinite argument: %v, want an error", err)
	}
}

// TestBuilderRefusesWhatCheckFactRefuses: whatever was set, and however
// (ints in and out of range, other setters on int facts, objects with
// and without a number that is not finite, Event called again with no
// change), Event refuses exactly when checking every fact in order
// would, with the same error: it calls checkFact only for facts whose
// answer it does not know.
func TestBuilderRefusesWhatCheckFactRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	// 1<<53 + 1 reads as 1<<53, which passes; 1<<53 + 2 does not.
	ints := []int64{0, 1, 7, -1, 1 << 53, 1<<53 + 1, 1<<53 + 2, 1 << 60, -(1 << 53), -(1<<53 + 2), 150000}
	for _, ev := range contract.Events {
		b, err := NewEventBuilder(ev.Name)
		if err != nil {
			t.Fatal(err)
		}
		all := allFacts[b.kind]
		refused := 0
		for n := 0; n < 3000; n++ {
			if rng.IntN(8) == 0 {
				b.Reset()
			}
			i := FactIndex(rng.IntN(len(all)))
			switch rng.IntN(6) {
			case 0, 1:
				b.SetInt(i, ints[rng.IntN(len(ints))])
			case 2:
				b.SetBool(i, rng.IntN(2) == 0)
			case 3:
				_ = b.SetString(i, "w1")
			case 4:
				b.SetObject(i, map[string]any{"n": []float64{1, math.Inf(1)}[rng.IntN(2)]})
			case 5: // no change
			}
			var want error
			for j := range all {
				if want = checkFact(b.def, &all[j], b.facts[j]); want != nil {
					break
				}
			}
			_, got := b.Event()
			if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
				t.Fatalf("%s after a set of %s: Event says %v, checkFact %v", ev.Name, all[i].Name, got, want)
			}
			if got != nil {
				refused++
			}
		}
		if len(b.checked) > 0 && refused == 0 {
			t.Errorf("%s: no event refused; the test does not reach the check", ev.Name)
		}
	}
}
