// Package opencode holds the opencode plugin (TypeScript, in src/) that
// carries resetpolicy into opencode, and the Go test that runs its
// end-to-end suite against real opencode and a scripted model server. It
// has no Go code of its own: the engine it talks to is `resetpolicy serve`.
// `npm pack` here makes the installable npm package @resetpolicy/opencode,
// which carries the engine's Go sources (engine-src/, copied by
// host/pi/scripts/pack-engine.mjs) and builds the engine from them once.
package opencode
