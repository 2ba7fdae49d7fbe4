// Package replay decides recorded Pi sessions under a policy: what a
// policy, with given params and host settings, would have done over a
// team's real history.
//
// # What it owns
//
//   - Sessions to host events (DESIGN §4): session_start; per model turn
//     a request carrying the context tokens Pi's getContextUsage reports
//     then (the latest valid usage plus Pi's estimate of what follows,
//     host/estimate; a provider's stated prompt size where an overflow
//     error has one) and a turn_end with the
//     outcome, the error kind and the tool results; tool events for the
//     tools the policy declares; agent_end, before_settle and settled
//     when a user prompt (or the end of the branch) ends a run;
//     model_select at model changes; before_compact and compact_done at
//     the session's own compactions; session_tree at branch summaries; a
//     new window id at the session's own reset markers. Events are built
//     with engine.EventBuilder, never through JSON.
//   - The host mechanics a decision implies, so that later facts stay
//     consistent: a new window after commit_reset or provide_reset, the
//     summary_done answering a checkpoint, the compaction a compact
//     effect starts, and — once the replay has left the record — Pi's
//     threshold compaction.
//   - Counterfactuals. Until the first decision that changes the window
//     (a reset, a checkpoint, a compaction the policy starts, a recorded
//     compaction it cancels) every token figure is measured: it is what
//     the provider reported. From that decision on, the recorded tokens
//     no longer describe the window, and the replay projects: the window
//     starts at the boot size (the session's first request, the prompt
//     and tools of a fresh window) after a reset, at that plus the kept
//     recent tokens after a summarising compaction, or stays where it was
//     after a cancelled one; each later turn adds what it added in the
//     record (never less than nothing). Recorded compactions, resets and
//     overflow errors (while the projected request fits) after that point
//     are not replayed — they answered a window that no longer exists —
//     and Pi's own threshold compaction is applied to the projected tokens
//     instead. Every figure carries its Kind: measured, estimated or
//     projected.
//   - What a replay cannot know: notes on a window the record's context
//     exceeds or a provider states, a model pi-ai's registry does not
//     know, and a warning the recorded agent never saw; Config.ObeysWithin
//     assumes the agent closes out that many turns after a warning.
//   - Context windows from pi-ai's model registry (models_gen.go, written
//     by go generate from the installed package).
//   - The report: per session and in total, turns, peak context, the
//     first reminder, warning and hard-reserve turns, the resets and
//     checkpoints the policy would commit against the compactions that
//     really happened, the runway left at each warning, and the events
//     the policy rejected; comparisons of settings side by side; plots.
//   - Running a corpus: sessions replayed in parallel, each worker holding
//     one file at a time, reports handed back in input order.
//
// # What it must not do
//
// It does not decide (the engine does) and does not read policies or
// settings files (the command does). Reading session files is
// host/sessionfile's job.
package replay
