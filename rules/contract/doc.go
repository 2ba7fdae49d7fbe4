// Package contract declares the host contract (DESIGN §4) once, in Go: the
// lifecycle events a host reports, the facts each carries with their types
// and defaults, and the effects a host carries out with their argument
// types. The policy language validates policies against it and the engine
// validates events against it. Names here are read by tests outside the
// project: add to them, never rename them.
//
// It owns no behaviour: no decoding, no evaluation, no I/O.
package contract
