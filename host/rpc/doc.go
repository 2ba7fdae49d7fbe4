// Package rpc is the host server: newline-delimited JSON-RPC 2.0 over a
// reader and a writer (DESIGN §7), as `resetpolicy serve --stdio` runs it.
//
// # Methods
//
// initialize {projectDir, trusted} loads the settings and the policy and
// returns the protocol version and the policy's surface: tools, commands,
// messages, and the params in force with their values and origins. A
// policy that fails to load leaves the last good policy (or the built-in
// default) in force; the result then carries "error", one notice for the
// user, and the diagnostics.
//
// decide {session, event} decides one host contract event for a session
// (created on first use) and returns {rules, effects, state}. snapshot
// {session} returns a session's state (an unknown session is an error);
// restore {session, state} sets it, creating the session if need be, and
// names in "reset" the slots a partial state left at their initial
// values; closeSession {session} forgets one. The host closes a session
// when it ends (Pi's session_shutdown); beyond MaxSessions (default
// 1,024) the least recently used session is evicted.
//
// The boundary mechanics of package session, taking and returning Pi
// entries as JSON so that a host adapter does not re-implement them:
// boundary, checkpoint, compactionReset, committed, inspectTail, repair,
// project, activeWindow, findCompactionReset, compactedAtLeaf and
// suppressTreeSummary. saveParam and clearParam persist a param in the
// project's settings (the save_param and clear_param effects).
//
// # Protocol
//
// One request per line, one response per line, in order. Malformed JSON
// is answered with -32700, a request that is not a request (or a line
// longer than MaxLine) with -32600, an unknown method with -32601 and bad
// params with -32602; the server keeps serving after each. A decision the
// policy cannot take (an expression failing at run time) is -32000 and
// leaves the session's state unchanged. Notifications (no id) get no
// response. Batches are accepted. EOF ends Serve without error.
//
// # What it must not do
//
// It writes nothing but responses to its writer; log lines go to
// Options.Log. It decides nothing itself: decisions are the engine's,
// the boundary mechanics are package session's. The clock (for the
// decision log) lives here, never in the engine.
package rpc
