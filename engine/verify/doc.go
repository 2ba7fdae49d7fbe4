// Package verify is the model checker behind `resetpolicy verify`: it
// explores, breadth-first, every state a policy can reach from its initial
// state under every event the host contract allows, and checks the
// policy's property blocks (invariants, never, always_emits obligations,
// at_most, no_loop_of) and the checks every policy gets (rules that never
// fire, enum values never held, decisions that fail at run time).
//
// Facts range over finite domains derived from the policy's own
// expressions, re-parsed from their source: the literals a fact is
// compared with on its event, a value on each side of every threshold
// (for every declared value of the other facts a comparison reads, and
// again per state where the threshold moves with it), booleans both ways.
// The host is modelled where the contract says how it answers: a
// committed reset opens a new window (or fails and stays), the clock only
// moves forward, to just before and at each deadline the state holds.
// Decisions are the real engine's (engine.New, Session.Decide).
//
// A slot enters the state key abstracted (counters clamped, ids relative,
// window ids renamed) only where every expression uses it as the
// abstraction allows (shape.go); otherwise it is exact. Every exploration
// is bounded by states, decisions and estimated memory held, and by a
// budget the caller polls if it gives one; one cut by a bound is
// incomplete: it proves nothing of the states it did not reach.
//
// The event instances of a state that read alike — that agree on every
// fact the first of them read, in its guards and in the property checks —
// share one decision and one round of checks (classes.go); the
// transitions that lead to the same place alike share the work after it
// (expand.go). Instances are kept as the index of each fact's value and
// made whole only to be decided or checked.
//
// It is pure: no clock, no environment, no files.
package verify
