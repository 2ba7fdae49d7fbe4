// Package pi holds the Pi package of resetpolicy: the TypeScript extension
// that Pi loads (src/, declared in package.json's "pi" manifest) and its
// end-to-end tests in Pi 1.6's real agent loop (test/, node:test).
//
// The only Go here is e2e_test.go, which lets `go test ./...` run those
// tests: it builds the resetpolicy binary, finds Node 22.19 or later and
// the installed node_modules (see ci-install.sh) and runs
// `node --test test/*.test.ts` with RESETPOLICY_BIN set. When CI=true a
// missing Node or node_modules fails the test instead of skipping it;
// otherwise one line on the terminal says they were skipped.
//
// Installed with `pi install`, the extension finds its engine or builds it
// (src/install.ts): RESETPOLICY_BIN, else resetpolicy on PATH, else
// bin/resetpolicy built with the machine's Go from the engine's sources —
// engine-src/, which `npm pack` copies in (scripts/pack-engine.mjs), or the
// checkout the package sits in.
//
// The extension decides nothing: every decision is the engine's, every
// boundary mechanic (building, confirming, inspecting, repairing and
// projecting entries) is asked of `resetpolicy serve --stdio`.
package pi
