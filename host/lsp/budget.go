package lsp

// A check's work is bounded by counts, not by the clock, so what a check
// covers never depends on the machine's load: a policy is checked within
// the loader's bounds (rules.MaxFileBytes, rules.MaxNesting, the
// expression bounds); a test file loads its policy and runs its events
// within the bounds below.
const (
	// MaxCheckLoadBytes bounds the policy text one check of a test file
	// loads, summed over its sets of param values (each a whole load).
	MaxCheckLoadBytes = 16 << 20
	// minLoadCost is what one load counts at least: with it a check loads
	// the policy at most MaxCheckLoadBytes/minLoadCost = 32 times.
	minLoadCost = 512 << 10
	// MaxCheckEvents bounds the events one check of a test file runs.
	MaxCheckEvents = 10000
)

// budget is what one check may still do. Its zero value has the full
// bounds and never goes stale.
type budget struct {
	// stale says the document changed (or closed) since the check began:
	// the check stops at its next load or run.
	stale func() bool
	// hook, for tests, is called at each of those steps.
	hook func()

	loadBytes, events int // spent
}

func (b *budget) isStale() bool {
	if b.hook != nil {
		b.hook()
	}
	return b.stale != nil && b.stale()
}

// takeLoad spends one load of a policy of size bytes, or says the bound
// is reached.
func (b *budget) takeLoad(size int) bool {
	cost := max(size, minLoadCost)
	if b.loadBytes+cost > MaxCheckLoadBytes {
		return false
	}
	b.loadBytes += cost
	return true
}

// takeEvents spends n events, or says the bound is reached.
func (b *budget) takeEvents(n int) bool {
	if b.events+n > MaxCheckEvents {
		return false
	}
	b.events += n
	return true
}
