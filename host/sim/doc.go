// Package sim is the simulated Pi-like host: it follows a scenario
// (package host/scenario) through Pi 1.6's agent lifecycle, sends every
// host event to the engine with the facts of the simulated session, and
// carries out every effect with the mechanics of package host/session.
// It is the scenario test bed and the engine of `resetpolicy simulate`.
//
// # The lifecycle
//
// A prompt (or an effect that starts a turn while idle) starts a run:
// agent_start, then turns — `request` (context_with_system), the model's
// answer from the scenario, its tool calls (a tool the policy declares is a
// `tool` event whose replies are the result), `turn_end` with the turn's
// entries — until no tool follow-up, steering message or continuation asks
// for another; then `agent_end`. More work follows before settling: one
// compact-and-retry after a context overflow (Pi's recovery, only with
// automatic compaction on), then queued messages one at a time (steering
// first, then follow-ups), each a new low-level run. Then `before_settle`,
// whose continuation starts another run, and `settled`. A cancelled
// operation (a user abort, or a stop the host carries out) skips
// before_settle and returns queued messages to the editor. Before a turn
// that follows naturally and before a new prompt, Pi's threshold compaction
// runs when tokens exceed context_window - reserve. Every compaction —
// threshold, overflow, /compact, or a policy's `compact` attempt — passes
// Pi's eligibility check (the branch must not already end in a compaction
// and must hold conversation), then `before_compact`, then `compact_done`
// or `compact_failed`; an attempt adds `attempt_complete` or
// `attempt_error`.
//
// # Facts
//
// window_id is w1 until the first committed reset and a new id (w2, w3, …)
// after each; reading a session back takes the window of its latest reset.
// tokens is Pi's estimate: the usage the provider reported for the latest
// answer after the latest compaction plus about a token per four characters
// of what follows it, or the estimate of the whole projected context. idle
// is false while a run is streaming; queued is true while steering or
// follow-up messages wait.
//
// # Effects
//
//   - commit_reset appends session.Boundary for a new window (compaction,
//     marker, boot, continuation), checks it with session.Committed, then
//     continues (the boundary's `continue`) or stops.
//   - provide_reset answers before_compact with session.CompactionTimeReset
//     for a new window.
//   - checkpoint appends session.Checkpoint with a summary (scripted with a
//     summary step, failures included) and reports summary_done.
//   - inject: deliver "request" adds the message to this request and makes
//     it durable as a hidden custom message at the end of the turn if it
//     completes in the same window (discarded otherwise); "steer" and "turn"
//     queue it as steering while streaming and start a run with it while
//     idle.
//   - continue: at turn_end or before_settle the boundary's continuation; in
//     the middle of a run, at the next boundary; idle, a run started by the
//     policy's continuation message.
//   - stop: at a request, the request is cancelled (ctx.abort()) — unless
//     the active window's marker is not a committed boundary, or a user
//     message follows the latest reset (seed 000's safe cancellation never
//     swallows user input); at turn_end the run is cancelled after the turn;
//     at before_settle no continuation follows.
//   - compact starts a tagged compaction once the host is idle.
//   - cancel_compaction, reply, notify, status, repair (session.InspectTail
//     and session.Repair), save_param and clear_param (recorded in Result).
//
// A request whose projection has no boot for its window is not sent (seed
// 000: "the runtime aborts safely instead of sending raw history"), and
// /tree summaries are suppressed when either branch crosses a reset.
//
// # Policy messages
//
// The boot and continuation texts of a reset boundary are the policy's
// messages named `boot` and `continuation` when it declares them, and
// DefaultBoot and DefaultContinuation otherwise; an idle `continue` sends
// the same continuation text. Injected messages are hidden custom messages
// of type InjectedType with details {name, windowId}.
//
// # What it must not do
//
// It decides nothing: when to warn, reset, compact, continue, stop or
// repair is the engine's answer, and the host only carries it out. It
// builds, checks and projects entries only through host/session, never by
// hand. It reads no clock, randomness or environment: time is the scenario's
// clock and ids are sequential, so the same scenario gives the same timeline
// and the same session file. It does no I/O besides LoadPolicy reading the
// policy file it is asked for.
package sim
