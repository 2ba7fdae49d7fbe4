package hcltree

// slab hands out values of one type from arrays it allocates, so that
// rebuilding a tree of thousands of nodes costs dozens of allocations
// instead of thousands (a quarter of the start of the process Pi spawns
// went to allocating). Each array is twice as long as the one before, from
// 8 to at most 64 values, so the values left unused are never more than
// one array's worth: with arrays of up to 512, the unused values took the
// start's heap past Go's first 4 MB goal, and the collection that then ran
// cost more than the allocations saved (callgrind, docs/performance.md).
type slab[T any] struct {
	free []T
	size int
}

// one returns a pointer to a zero value.
func (s *slab[T]) one() *T { return &s.take(1)[0] }

// take returns n zero values (an empty slice, not nil, for none), their
// capacity cut at n so that an append reallocates instead of writing over
// the next ones. A run longer than the next array gets one of its own.
func (s *slab[T]) take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > len(s.free) {
		s.size = min(max(2*s.size, 8), 64)
		if n > s.size {
			return make([]T, n)
		}
		s.free = make([]T, s.size)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}
