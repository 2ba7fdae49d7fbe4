// Package graph is the state graph behind `resetpolicy graph`: the
// diagram of a policy's enum slots, one per slot from the rules as
// written, or the product of several slots restricted to the states the
// model checker (engine/verify) reaches; written as DOT or Mermaid
// (host/render draws the DOT as SVG or PNG).
//
// It is pure: no clock, no environment, no files.
package graph
