// Package estimate is Pi 1.6's token estimate, ported exactly, in the one
// place the replay (host/replay, through host/sessionfile) and the
// simulated host (host/sim) share.
//
// Pi estimates a context (compaction.js estimateContextTokens) as the
// usage the provider reported for the latest valid answer
// (calculateContextTokens: totalTokens, or the sum of its parts; an
// aborted or failed answer, or one with no usage, does not count) plus
// estimateTokens of every message after it; with no such answer, the sum
// of estimateTokens over the whole context. estimateTokens is
// ceil(chars/4) per message, where chars counts, by role:
//
//   - user, toolResult, custom: the content (a string, or text blocks;
//     an image block is a fixed 4,800 characters);
//   - assistant: text and thinking blocks, and a tool call's name plus its
//     JSON.stringify'd arguments;
//   - system: the content, every non-empty section, and JSON.stringify of
//     toolsAdded;
//   - bashExecution: command plus output;
//   - branchSummary, compactionSummary: the summary.
//
// A character is a JavaScript string's unit (UTF-16), not a byte, and
// JSON.stringify's length is computed from the parsed value the way V8
// writes it (no spaces, JavaScript number forms, its escapes), so a file
// written by another tool with other whitespace or escapes estimates the
// same as Pi's own.
//
// # What it must not do
//
// It reads no files and keeps no state: every function is a pure function
// of a parsed message.
package estimate
