package sim_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

// Seed 001 (new_context): "The SDK tests cover explicit success, instant
// automatic reset, and core compaction rejection followed by a user
// prompt."

// checkCompactionTimeReset asserts seed 001's boundary for a window: a
// retain-none checkpoint that names the window, with no marker, boot or
// continuation ("A compaction result can carry only the compaction").
func checkCompactionTimeReset(t *testing.T, r *sim.Result, window string) *session.Entry {
	t.Helper()
	e, ok := session.FindCompactionTimeReset(r.Session.Path(), window)
	if !ok {
		t.Fatalf("no compaction-time reset for %s:\n%s", window, strings.Join(describe(r.Session.Path()), "\n"))
	}
	if !session.IsTrustedCheckpoint(e) || string(e.Field("fromHook")) != "true" {
		t.Errorf("%s: %s", window, e.Bytes())
	}
	for _, x := range r.Session.Entries() {
		if (session.IsMarker(x) || session.IsBoot(x)) && x.WindowID() == window {
			t.Errorf("a compaction-time reset has no marker or boot: %s", sim.DescribeEntry(x))
		}
	}
	return e
}

// Explicit success. Rows: "new_context: Mark explicit request ... Tool
// returns terminal output." "agent_settled: If idle and an explicit request
// is pending, create one identified attempt and request ctx.compact."
// "Matching session_compact: Confirm boundary". "Attempt onComplete: Consume
// attempt; send continuation only for a confirmed boundary when idle with no
// queued messages."
func TestSeed001_ExplicitSuccess(t *testing.T) {
	r := run(t, "new_context_explicit")
	tool := fired(r, "new_context_marks_explicit_request")
	if len(tool) != 1 || !strings.Contains(effects(tool[0]), `"terminate":true`) {
		t.Fatalf("the tool returns terminal output: %v", tool)
	}
	// Terminal output: the tool batch has no follow-up turn.
	te := r.Lines[index(r, tool[0])+1]
	if te.Event != "turn_end" || r.Lines[index(r, te)+1].Event != "agent_end" {
		t.Errorf("the terminal tool result ends the run: %s / %s", te, r.Lines[index(r, te)+1])
	}
	st := fired(r, "settled_starts_one_identified_attempt")
	if len(st) != 1 || !st[0].Idle || effects(st[0]) != `{"effect":"compact","attempt":1}` {
		t.Fatalf("settled starts attempt 1: %v", st)
	}
	seq := []string{"before_compact(manual)", "compact_done(manual, attempt 1)", "attempt_complete(1)", "request"}
	i := index(r, st[0])
	for k, want := range seq {
		if got := r.Lines[i+1+k].Label(); got != want {
			t.Errorf("after settled, line %d is %s, want %s", k+1, got, want)
		}
	}
	if !r.Lines[i+1].Fired("compaction_returns_reset_boundary_at_once") || !r.Lines[i+2].Fired("matching_compact_done_confirms_boundary") {
		t.Error("the hook returns the boundary and the matching session_compact confirms it")
	}
	if c := r.Lines[i+3]; !c.Fired("attempt_complete_continues_confirmed_boundary") || effects(c) != `{"effect":"continue"}` {
		t.Errorf("completion continues: %s", c)
	}
	checkCompactionTimeReset(t, r, "w2")
	if got := strings.Join(pathFrom(r, "compaction(retain-none, w2)"), ","); got != `compaction(retain-none, w2),hidden(continuation),assistant "Fresh window: reading m…"` {
		t.Errorf("after the reset: %s", got)
	}
}

// Instant automatic reset. Row "Manual, threshold or overflow
// session_before_compact, idle or streaming: Build the reset boundary
// immediately and return it. Never cancel and never take a model turn."
// "After it, the model ... rides into Pi's automatic compaction, which resets
// on the spot with no turn." "The final checkpoint warning is steered ...
// once per window at reserve+12288 tokens remaining."
func TestSeed001_InstantAutomaticReset(t *testing.T) {
	r := run(t, "new_context_instant")
	warn := fired(r, "checkpoint_warning_once_per_window")
	if len(warn) != 1 || warn[0].Window != "w1" || warn[0].Remaining > 16384+12288 {
		t.Errorf("one warning in w1 at reserve+12288 remaining: %v", warn)
	}
	bc := on(r, "before_compact")
	if len(bc) != 3 {
		t.Fatalf("%d compactions, want threshold, manual and overflow", len(bc))
	}
	for k, want := range []string{"before_compact(threshold)", "before_compact(manual)", "before_compact(overflow, will_retry)"} {
		l := bc[k]
		if l.Label() != want || effects(l) != `{"effect":"provide_reset"}` {
			t.Errorf("compaction %d: %s, want %s answered with provide_reset", k, l, want)
		}
		// On the spot: the very next line confirms it, no model turn between.
		next := r.Lines[index(r, l)+1]
		if next.Event != "compact_done" || next.Turn != l.Turn {
			t.Errorf("the reset happens with no turn: %s then %s", l, next)
		}
	}
	for _, w := range []string{"w2", "w3", "w4"} {
		checkCompactionTimeReset(t, r, w)
	}
	// The threshold reset happens inside the run: its next turn is in w2.
	if next := r.Lines[index(r, bc[0])+2]; next.Event != "request" || next.Window != "w2" {
		t.Errorf("the run goes on in the fresh window: %s", next)
	}
	// The idle /compact takes no model turn at all.
	if bc[1].Idle != true || r.Lines[index(r, bc[1])+2].Event != "request" || len(r.Lines[index(r, bc[1])+2].Entries) != 1 {
		t.Errorf("/compact while idle resets without a turn: %s", r.Lines[index(r, bc[1])+2])
	}
	// The overflow reset is followed by Pi's retry in w4.
	if next := r.Lines[index(r, bc[2])+2]; next.Event != "request" || next.Window != "w4" {
		t.Errorf("the overflow reset retries in w4: %s", next)
	}
}

// Core compaction rejection followed by a user prompt. "Pi also determines
// compaction eligibility before the extension hook; an uncompactable session
// produces a warning and waits for a new prompt." Row "Attempt onError or
// synchronous throw: Clear attempt/request, warn, retain history. No
// automatic retry loop."
func TestSeed001_CoreCompactionRejectionFollowedByUserPrompt(t *testing.T) {
	r := run(t, "new_context_rejection")
	if n := len(on(r, "before_compact")); n != 0 {
		t.Errorf("Pi rejects before the extension hook; %d before_compact", n)
	}
	e := fired(r, "attempt_error_clears_and_warns_without_retry")
	if len(e) != 1 || e[0].Label() != `attempt_error(1, "Nothing to compact (ses…")` {
		t.Fatalf("attempt error: %v", e)
	}
	if len(r.Notices) != 1 || r.Notices[0].Level != "warning" || !strings.Contains(r.Notices[0].Text, "could not be started") {
		t.Errorf("one warning: %v", r.Notices)
	}
	for _, x := range r.Session.Entries() {
		if x.Type() == session.TypeCompaction {
			t.Errorf("history must be retained: %s", x.Bytes())
		}
	}
	// The next prompt runs normally: no new attempt, no retry loop.
	if n := len(on(r, "compact_done")) + len(fired(r, "settled_starts_one_identified_attempt")); n != 1 {
		t.Errorf("only the one attempt: %d", n)
	}
	last := r.Lines[len(r.Lines)-1]
	if last.Event != "settled" || last.Window != "w1" {
		t.Errorf("the prompt's run settles in w1: %s", last)
	}
	if position(t, r, `assistant "Example added."`) < position(t, r, `user "Add an example to the R…"`) {
		t.Error("the prompt is answered")
	}
}

// Row "Attempt onError or synchronous throw: Clear attempt/request, warn,
// retain history. No automatic retry loop." Row "Manual, threshold or
// overflow session_before_compact ...: an aborted signal returns { cancel:
// true }."
func TestSeed001_AttemptErrorWarnsWithoutRetry_AbortedSignalCancels(t *testing.T) {
	r := run(t, "new_context_attempt_failure")
	failed := on(r, "compact_failed")
	if len(failed) != 2 {
		t.Fatalf("%d failed compactions, want 2", len(failed))
	}
	if failed[0].Label() != `compact_failed(manual, attempt 1, "could not write the ses…")` {
		t.Errorf("the attempt's compaction fails: %s", failed[0])
	}
	e := r.Lines[index(r, failed[0])+1]
	if e.Event != "attempt_error" || !e.Fired("attempt_error_clears_and_warns_without_retry") {
		t.Errorf("the attempt's error callback clears and warns: %s", e)
	}
	if n := len(fired(r, "settled_starts_one_identified_attempt")); n != 1 {
		t.Errorf("%d attempts; no automatic retry loop", n)
	}
	bc := on(r, "before_compact")
	if len(bc) != 2 || bc[1].Label() != "before_compact(threshold, signal_aborted)" || effects(bc[1]) != `{"effect":"cancel_compaction"}` {
		t.Errorf("an aborted signal returns cancel: %v", bc)
	}
	if failed[1].Label() != "compact_failed(threshold, aborted)" {
		t.Errorf("the cancelled compaction is reported aborted: %s", failed[1])
	}
	for _, x := range r.Session.Entries() {
		if x.Type() == session.TypeCompaction {
			t.Errorf("history must be retained: %s", sim.DescribeEntry(x))
		}
	}
}
