// Package verify is the model checker behind `resetpolicy verify`: it
// explores, breadth-first, every state a policy can reach from its initial
// state under every event the host contract allows, and checks the
// policy's property blocks and the checks every policy gets (rules that
// never fire, enum values never held, decisions that fail at run time).
//
// Facts range over finite domains derived from the policy's own
// expressions, re-parsed from their source: the literals a fact is
// compared with, a value on each side of every threshold, booleans both
// ways. The host is modelled where the contract says how it answers: a
// committed reset opens a new window (or fails and stays), the clock only
// moves forward, to just before and at each deadline the state holds.
// Decisions are the real engine's (engine.New, Session.Decide).
//
// It is pure: no clock, no environment, no files.
package verify
