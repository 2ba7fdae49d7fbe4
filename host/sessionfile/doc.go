// Package sessionfile reads recorded Pi session files for replay: every
// format version Pi 1.6 still migrates, the way Pi reads them, into
// compact typed entries that keep what a replay needs (ids, message roles,
// usage, stop reasons, tool calls of the tools asked for, compactions,
// model changes, this project's reset markers, and Pi's token estimate of
// each entry's messages, host/estimate) and nothing else.
//
// # What it owns
//
//   - The line reader: each line read exactly as Pi 1.6 reads it when it
//     opens a session (loadEntriesFromFile; see line.go): lines split on
//     '\n', invalid UTF-8 decoded as Node decodes it (each maximal
//     ill-formed sequence one U+FFFD), a line JavaScript's trim() leaves
//     empty skipped, every other line JSON.parse'd (host/jsonscan's strict
//     Doc) and dropped where JSON.parse throws: not strict JSON, two
//     values, a cut object then the next entry, a byte order mark; of a
//     key written twice, the last value. Each line where that differs
//     from what its bytes seem to say is a Problem with its line number,
//     never a failure of the whole file. JSON is read with host/jsonscan,
//     which measures every string for Pi's estimate as it reads it, into a
//     table reused for every line. A token count that is no count
//     (negative, fractional, over MaxTokenCount) is a Problem of its line
//     and is not used.
//   - Pi's migrations (session-manager.js migrateV1ToV2, migrateV2ToV3):
//     version 1 entries get ids and a parent chain in file order and a
//     compaction's firstKeptEntryIndex becomes firstKeptEntryId; version 2
//     message role "hookMessage" reads as "custom".
//   - The tree: Branch walks from a leaf (by default the last entry, as Pi
//     sets it) to the root.
//   - File names: Pi's *.jsonl and archived *.jsonl.reset.<timestamp>;
//     Walk finds them below directories.
//
// Entry types come from host/session (session.TypeMessage, …) and so do
// the reset marker types; an entry type Pi does not write (tools built on
// Pi's format add their own) is kept in the tree, so parent links through
// it still hold, and counted in File.Skipped.
//
// # Bounds
//
// Limits bounds what one file can cost: bytes per line (DefaultMaxLine,
// 8 MiB; a longer line is a Problem and skipped), entries per file
// (DefaultMaxEntries, 2,000,000; the rest of the file is not read and a
// Problem says so), bytes per file (DefaultMaxFile, 1 GiB, likewise), tool
// calls kept per message (MaxToolCalls) and the bytes of tool arguments
// kept (MaxArgs; only for the tools the caller names). Strings kept from a
// line are copied, so no line buffer outlives its line. A Reader reuses
// its entries and index from one file to the next (a File is valid until
// the next Read), so reading a corpus costs the memory of its largest
// session.
//
// # What it must not do
//
// It decides nothing and writes nothing: it never repairs or rewrites a
// file (Pi rewrites migrated files; this package only reads). Full-fidelity
// entries that round-trip byte for byte are host/session's job.
package sessionfile
