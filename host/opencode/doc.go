// Package opencode holds the opencode plugin (TypeScript, in src/) that
// carries resetpolicy into opencode, and the Go test that runs its
// end-to-end suite against real opencode and a scripted model server. It
// has no Go code of its own: the engine it talks to is `resetpolicy serve`.
package opencode
