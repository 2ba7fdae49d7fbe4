package hcltree

import "testing"

// TestSlabTake: values taken are zero, never shared, capped so that an
// append cannot write over the next ones; none is an empty slice, not
// nil (a decoded tree must equal a parsed one, which has empty lists);
// a run longer than an array gets its own.
func TestSlabTake(t *testing.T) {
	var s slab[int]
	if got := s.take(0); got == nil || len(got) != 0 {
		t.Fatalf("take(0) = %#v, want an empty slice", got)
	}
	a := s.take(3)
	b := s.take(2)
	if len(a) != 3 || cap(a) != 3 || len(b) != 2 {
		t.Fatalf("len/cap: a %d/%d, b %d", len(a), cap(a), len(b))
	}
	a = append(a, 7)
	if b[0] != 0 {
		t.Fatal("an append to one run wrote over the next")
	}
	a[0], b[0] = 1, 2
	if p := s.one(); *p != 0 {
		t.Fatalf("one() = %d, want a zero value", *p)
	}
	long := s.take(5000)
	if len(long) != 5000 {
		t.Fatalf("a long run: %d values", len(long))
	}
	for i := range 2000 { // past several arrays
		if p := s.one(); *p != 0 {
			t.Fatalf("value %d not zero", i)
		}
		*s.one() = i
	}
	if s.size > 64 {
		t.Errorf("an array of %d values, more than 64", s.size)
	}
}
