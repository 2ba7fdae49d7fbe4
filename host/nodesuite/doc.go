// Package nodesuite runs a host's node:test suite from go test, split
// into shards: each shard is one Node process that loads its files into
// one module graph (--experimental-test-isolation=none), so the host's
// packages are loaded once per shard instead of once per file, and the
// shards run side by side, so that one shard's waits on child processes
// (an engine build, a CLI run, a decision timeout) overlap another's work.
//
// A file runs in exactly one shard and every file matched runs
// (TestShardsCoverEveryFile). Files that share state with no other file
// but are long (a package install) can be given a shard of their own.
//
// FindNode finds the Node a suite runs on, the same way for every host.
package nodesuite
