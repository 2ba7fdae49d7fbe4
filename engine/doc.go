// Package engine runs compiled policies: sessions, Decide, decisions with
// their explanations, and state snapshots.
//
// A *rules.Policy is compiled once; engine.New prepares it for running and
// any number of sessions share it. Decide takes one event, evaluates the
// candidate rules of each group in file order against the state before the
// event, and returns the rules that fired, the effects in order and the
// next state. A rejected event (unknown name, unknown fact, wrong type, an
// expression that cannot be evaluated) returns an error and leaves the
// state as it was.
//
// Events come in through one gate: Decoder reads them from JSON (eval,
// the stdio server, replay) straight into fact slots, without a map and,
// in a stream, without allocating; NewEvent takes a map. Both judge each
// fact's value in checkFact (finite numbers, no negative counts, a
// context window of at least one token), so a bad fact is refused where it
// enters, with the same message whichever way it came.
//
// The engine is pure and deterministic: it never reads the clock, the
// environment or files. Time is the event's now_ms fact.
package engine
