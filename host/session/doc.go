// Package session is the Pi 1.6 session model and the reset-boundary
// mechanics that are not decisions (DESIGN §4, last paragraph).
//
// # What it owns
//
// The session file: a header line and entries as Pi 1.6 writes them
// (session-format.md in the Pi package docs): message entries (system,
// user, assistant with usage, toolResult, and the custom role of
// migrated sessions), compaction, custom, custom_message, context_edit,
// branch_summary, model and thinking changes, labels. Ids are Pi's
// (8 hex characters, collision-checked, with a UUID fallback) and come
// from an injectable source, as do the clock and the compaction token
// estimate. Entries keep the bytes they were read from, so a session
// read and written again is byte-for-byte the same, unknown members and
// entry types included; new entries are written with Pi's member order.
//
// Pi's canonical projection (buildContextEntries, buildSessionProjection,
// getCurrentSystemMessage), so that the Go side sees the context the
// provider sees.
//
// The reset mechanics of the seeds:
//
//   - Boundary: the ordered retain-none boundary of seed 000 (empty
//     native compaction that keeps only itself, marker {windowId}, hidden
//     boot, hidden continuation), as Pi boundary drafts;
//   - Committed: confirms a committed boundary; later work does not undo
//     it;
//   - InspectTail and Repair: whether a marker's suffix is safe to
//     complete, and the drafts that complete it, never a compaction;
//   - Project and ProjectWindow: the retain-none projection, the legacy
//     marker-only slice at the matching boot, and a system-only abort
//     result when the boot is absent;
//   - SuppressTreeSummary: /tree summaries are suppressed when either
//     branch crosses a reset;
//   - Checkpoint: seed 002's self-retaining summarising checkpoint;
//   - CompactionTimeReset: seed 001's session_before_compact result.
//
// Marker and boot types are MarkerType and BootType; the pi-context
// names of seed 000 are accepted when reading.
//
// # What it must not do
//
// It decides nothing. When to reset, whether to continue or stop, when
// to repair, warn, cancel or retry are the policy's decisions, taken by
// the engine; this package only builds, checks and projects entries when
// asked. It does no I/O beyond the reader, writer or file it is given,
// reads no clock or randomness except through Options, and does not
// render boot or continuation texts: the caller supplies them.
package session
