package sim_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

// Seed 000 (wipe_memory), "Validation and known limits": every behaviour
// its scripted session tests cover, as a scenario.

// settlementStop checks a manual close-out: no turn_end commits; the one
// commit is at before_settle with continue=false and stop=true; after it
// the run settles in the new window without another request.
func settlementStop(t *testing.T, r *sim.Result) {
	t.Helper()
	for _, l := range on(r, "turn_end") {
		if _, ok := l.Effect("commit_reset"); ok {
			t.Errorf("a turn_end committed a reset: %s", l)
		}
	}
	commits := fired(r, "settle_commits_manual_close_out")
	if len(commits) != 1 {
		t.Fatalf("settle_commits_manual_close_out fired %d times, want once", len(commits))
	}
	c := commits[0]
	if c.Event != "before_settle" || effects(c) != `{"effect":"commit_reset","continue":false,"stop":true}` {
		t.Errorf("the commit is %s %s, want before_settle commit_reset(continue=false, stop=true)", c.Event, effects(c))
	}
	checkBoundary(t, r, "w2")
	rest := r.Lines[index(r, c)+1:]
	if len(rest) != 1 || rest[0].Event != "settled" || rest[0].Window != "w2" {
		var s []string
		for _, l := range rest {
			s = append(s, l.String())
		}
		t.Errorf("after the commit the run must settle in w2 without a fresh-window continuation; got:\n%s", strings.Join(s, "\n"))
	}
	if got := pathFrom(r, "compaction(retain-none, w2)"); len(got) != 4 {
		t.Errorf("entries after the boundary: %v, want the boundary alone (no continuation turn)", got)
	}
}

// "/wipe-memory: ... when idle it starts one ordinary model turn ... its own
// wipe_memory call only acknowledges. A successful normal stop commits at
// agent_before_settle ... the committed reset stops the run instead of
// continuing in the fresh window."
func TestSeed000_IdleManualCommand_CommitsAtSettlementAndStopsWithoutContinuation(t *testing.T) {
	r := run(t, "wipe_memory_manual_idle")
	cmd := on(r, "command")[0]
	if !cmd.Idle || !cmd.Fired("manual_checkpoint_warning_starts_turn_when_idle") {
		t.Fatalf("idle /wipe-memory: %s", cmd)
	}
	if e, _ := cmd.Effect("inject"); sim.DescribeEffect(e) != "inject(manual_checkpoint_warning, turn)" {
		t.Errorf("idle /wipe-memory must start a turn with the hidden warning: %s", effects(cmd))
	}
	// The warning is what the new run starts with.
	next := r.Lines[index(r, cmd)+1]
	if next.Event != "request" || len(next.Entries) != 1 || sim.DescribeEntry(next.Entries[0]) != "hidden(manual_checkpoint_warning)" {
		t.Errorf("the turn the command starts begins with the hidden warning; got %s", next)
	}
	if next.Entries[0].Display() {
		t.Error("the checkpoint warning must be hidden")
	}
	if len(fired(r, "tool_request_inside_manual_close_out_only_acknowledges")) != 1 {
		t.Error("the agent's wipe_memory inside a manual close-out must only acknowledge")
	}
	settlementStop(t, r)
}

// "/wipe-memory: ... while streaming it steers the running turn so the agent
// closes out promptly."
func TestSeed000_StreamingManualCommand_SteersTurnAndCommitsAtSettlement(t *testing.T) {
	r := run(t, "wipe_memory_manual_streaming")
	cmd := on(r, "command")[0]
	if cmd.Idle || !cmd.Fired("manual_checkpoint_warning_steers_running_turn") {
		t.Fatalf("streaming /wipe-memory: %s", cmd)
	}
	if e, _ := cmd.Effect("inject"); sim.DescribeEffect(e) != "inject(manual_checkpoint_warning, steer)" {
		t.Errorf("streaming /wipe-memory must steer: %s", effects(cmd))
	}
	// Delivered after the running turn's tool call, before the next answer.
	w := position(t, r, "hidden(manual_checkpoint_warning)")
	d := describe(r.Session.Path())
	if d[w-1] != "toolResult(write)" || !strings.HasPrefix(d[w+1], `assistant "Closing out`) {
		t.Errorf("the steered warning must come after the turn's tool results and before the next answer: %v", d[w-2:w+2])
	}
	settlementStop(t, r)
}

// "Direct wipe_memory remains valid without a prior warning." "wipe_memory
// tool: ... At turn_end, after the complete tool batch ..., append the
// reset boundary and ask Pi to continue."
func TestSeed000_DirectWipeWithoutWarning_CommitsAtTurnEndAndContinues(t *testing.T) {
	r := run(t, "wipe_memory_direct_wipe")
	if n := count(r, "hidden(checkpoint_warning)") + count(r, "hidden(manual_checkpoint_warning)"); n != 0 {
		t.Errorf("no warning went out, yet %d warning entries", n)
	}
	if len(fired(r, "tool_request_marks_window")) != 1 {
		t.Error("the direct call must mark the window")
	}
	c := fired(r, "turn_end_commits_tool_request")
	if len(c) != 1 || effects(c[0]) != `{"effect":"commit_reset","continue":true}` {
		t.Fatalf("turn_end must commit with continue=true: %v", c)
	}
	b := checkBoundary(t, r, "w2")
	if d := describe(r.Session.Path()); d[b-1] != "toolResult(wipe_memory)" {
		t.Errorf("the boundary comes after the complete tool batch; before it: %s", d[b-1])
	}
	next := r.Lines[index(r, c[0])+1]
	if next.Event != "request" || next.Window != "w2" {
		t.Errorf("a fresh-window continuation must follow the commit; got %s", next)
	}
}

// "Budget warning: When automatic compaction is enabled and remaining
// active-window budget reaches reserve plus the warning runway, put the same
// hidden warning in the request and arm an automatic close-out. An explicit
// wipe_memory commits the boundary". "The early reminder is staged once per
// window when remaining budget reaches reserve + reminderMarginTokens." "UI
// reminder notices are emitted only after the matching hidden entry is
// durable".
func TestSeed000_BudgetCloseOut_ReminderWarningAndExplicitWipe(t *testing.T) {
	sc, diags := scenario.Default()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r := runScenario(t, sc, sim.Options{})
	rem := fired(r, "budget_reminder_staged_once_per_window")
	if len(rem) != 1 || effects(rem[0]) != `{"effect":"inject","message":"budget_reminder","deliver":"request"}` {
		t.Fatalf("one reminder goes into a request: %v", rem)
	}
	if rem[0].Remaining > 16384+24576 || rem[0].Remaining <= 16384+12288 {
		t.Errorf("the reminder goes out between reserve+warning_runway and reserve+reminder_margin remaining; at %d", rem[0].Remaining)
	}
	note := fired(r, "budget_reminder_durable_at_completed_turn")
	if len(note) != 1 || note[0].Event != "turn_end" || index(r, note[0]) < index(r, rem[0]) {
		t.Errorf("the reminder notice comes at the end of the completed turn: %v", note)
	}
	warn := fired(r, "budget_warning_staged_once_per_window")
	if len(warn) != 1 || !warn[0].Fired("budget_warning_arms_automatic_close_out") {
		t.Fatalf("one warning goes into a request and arms the close-out: %v", warn)
	}
	if warn[0].Remaining > 16384+12288 {
		t.Errorf("the warning goes out at reserve+warning_runway remaining; at %d", warn[0].Remaining)
	}
	if len(fired(r, "tool_request_upgrades_budget_close_out")) != 1 || len(fired(r, "turn_end_commits_tool_request")) != 1 {
		t.Error("the explicit wipe inside the budget close-out must commit at turn_end")
	}
	b := checkBoundary(t, r, "w2")
	if !(position(t, r, "hidden(budget_reminder)") < position(t, r, "hidden(checkpoint_warning)") && position(t, r, "hidden(checkpoint_warning)") < b) {
		t.Error("reminder, warning and boundary must come in that order")
	}
	if last := r.Lines[len(r.Lines)-1]; last.Event != "settled" || last.Window != "w2" {
		t.Errorf("the session continues and settles in w2; last line %s", last)
	}
}

// "A budget close-out without an explicit wipe is discarded at settlement
// without resetting." "After a budget warning is durable, the extension does
// not repeat it in that window." "each eligible low-budget request re-arms
// transient automatic close-out before checking for the durable warning".
func TestSeed000_BudgetCloseOutWithoutWipe_DiscardedAtSettlement(t *testing.T) {
	r := run(t, "wipe_memory_budget_no_wipe")
	if n := len(effectsNamed(r, "commit_reset")); n != 0 {
		t.Errorf("%d resets; a budget close-out alone never resets", n)
	}
	if n := len(fired(r, "settle_clears_automatic_close_out")); n != 2 {
		t.Errorf("settle_clears_automatic_close_out fired %d times, want at each of the 2 settlements", n)
	}
	if n := count(r, "hidden(checkpoint_warning)"); n != 1 {
		t.Errorf("%d durable warnings in w1, want 1 (not repeated in the window)", n)
	}
	rearm := fired(r, "budget_warning_arms_automatic_close_out")
	if len(rearm) != 2 || len(rearm[1].Effects) != 0 {
		t.Errorf("the second low-budget request re-arms the close-out without another warning: %v", rearm)
	}
}

// "close_out(windowId, source) arms a close-out for that window. Repeating
// an already-pending request deduplicates" (same-window concurrent command
// deduplication).
func TestSeed000_SameWindowConcurrentCommand_Deduplicates(t *testing.T) {
	r := run(t, "wipe_memory_command_dedupe")
	cmds := on(r, "command")
	if len(cmds) != 2 {
		t.Fatalf("%d command lines", len(cmds))
	}
	if !cmds[1].Fired("wipe_command_deduplicates_manual_close_out") || len(cmds[1].Effects) != 1 {
		t.Errorf("the second command must only acknowledge: %s", cmds[1])
	}
	if n := count(r, "hidden(manual_checkpoint_warning)"); n != 1 {
		t.Errorf("%d warnings, want 1", n)
	}
	if n := len(effectsNamed(r, "commit_reset")); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	settlementStop(t, r)
}

// noReset asserts that nothing was reset.
func noReset(t *testing.T, r *sim.Result) {
	t.Helper()
	if n := len(effectsNamed(r, "commit_reset")); n != 0 {
		t.Errorf("%d commits, want none", n)
	}
	for _, e := range r.Session.Entries() {
		if e.Type() == session.TypeCompaction || session.IsMarker(e) {
			t.Errorf("unexpected %s", sim.DescribeEntry(e))
		}
	}
	for _, l := range r.Lines {
		if l.Window != "w1" {
			t.Errorf("the window changed: %s", l)
		}
	}
}

// "Abort or error: Never count as successful close-out. Abort clears
// lifecycle state." "turn_end first clears everything on abort." "An
// aborted run skips agent_before_settle".
func TestSeed000_UserAbort_ClearsCloseOutWithoutReset(t *testing.T) {
	r := run(t, "wipe_memory_abort_user")
	ab := fired(r, "turn_end_user_abort_clears_everything")
	if len(ab) != 1 || ab[0].Label() != "turn_end(aborted)" {
		t.Fatalf("the user abort must clear everything at turn_end: %v", ab)
	}
	i := index(r, ab[0])
	if r.Lines[i+1].Event != "agent_end" || r.Lines[i+2].Label() != "settled(aborted)" {
		t.Errorf("an aborted run goes from agent_end to settled(aborted), skipping before_settle: %s / %s", r.Lines[i+1], r.Lines[i+2])
	}
	if n := count(r, "hidden(manual_checkpoint_warning)"); n != 0 {
		t.Errorf("the steered warning of the aborted close-out was delivered %d times", n)
	}
	if len(fired(r, "settle_commits_manual_close_out")) != 0 {
		t.Error("the aborted close-out was committed later")
	}
	noReset(t, r)
}

// "A user abort, an assistant message with a synthetic stopReason:
// "aborted", and a generic provider error are distinct cases; none commits
// an ordinary close-out, while only Pi's actual operation cancellation is a
// user abort."
func TestSeed000_SyntheticAbort_IsNotAUserAbortAndDoesNotCommit(t *testing.T) {
	r := run(t, "wipe_memory_abort_synthetic")
	ab := fired(r, "turn_end_synthetic_abort_clears_without_commit")
	if len(ab) != 1 || ab[0].Label() != "turn_end(aborted, synthetic)" {
		t.Fatalf("synthetic abort: %v", ab)
	}
	if ab[0].Fired("turn_end_user_abort_clears_everything") {
		t.Error("a synthetic abort is not a user abort")
	}
	i := index(r, ab[0])
	if r.Lines[i+2].Label() != "before_settle(aborted)" || !r.Lines[i+2].Fired("settle_abort_clears_everything") {
		t.Errorf("a synthetic abort still reaches before_settle: %s", r.Lines[i+2])
	}
	if r.Lines[i+3].Label() != "settled" {
		t.Errorf("nothing was cancelled: %s", r.Lines[i+3])
	}
	noReset(t, r)
}

// "An ordinary close-out error is dropped without reset." "Other failures
// drop the request but preserve the overflow chain."
func TestSeed000_ProviderError_DropsCloseOutWithoutReset(t *testing.T) {
	r := run(t, "wipe_memory_error_cleanup")
	e := fired(r, "turn_end_failure_drops_manual_close_out_and_says_so")
	if len(e) != 1 || e[0].Label() != "turn_end(error: other)" {
		t.Fatalf("provider error: %v", e)
	}
	settle := r.Lines[index(r, e[0])+2]
	if settle.Label() != "before_settle(error)" || len(settle.Effects) != 0 {
		t.Errorf("the failed close-out must settle without effects: %s", settle)
	}
	noReset(t, r)
}

// "A successful normal stop commits at agent_before_settle after queued
// messages drain" (queued steering/follow-up delivery before the stop).
func TestSeed000_QueuedSteeringAndFollowUp_DeliveredBeforeTheStop(t *testing.T) {
	r := run(t, "wipe_memory_queued_before_stop")
	b := checkBoundary(t, r, "w2")
	for _, want := range []string{`user "Mention the new --dry-r…"`, `assistant "Added --dry-run to the …" [edit]`,
		`user "Then bump the version n…"`, `assistant "Version bumped to 1.4.0." [edit]`, `assistant "Done; notes are current."`} {
		if p := position(t, r, want); p > b {
			t.Errorf("%s comes after the reset", want)
		}
	}
	c := fired(r, "settle_commits_manual_close_out")
	if len(c) != 1 || c[0].Queued {
		t.Fatalf("commit: %v", c)
	}
	for _, l := range on(r, "before_settle") {
		if l.Fired("settle_commits_manual_close_out") {
			continue
		}
		t.Errorf("before_settle before the queue drained: %s", l)
	}
	settlementStop(t, r)
}

// "Hard reserve: Independent safety path: if automatic resets are enabled
// and completed-turn usage reaches Pi's reserve, commit a boundary at
// turn_end."
func TestSeed000_HardReserve_CommitsAtTurnEnd(t *testing.T) {
	r := run(t, "wipe_memory_hard_reserve")
	c := fired(r, "turn_end_hard_reserve_commits")
	if len(c) != 1 || effects(c[0]) != `{"effect":"commit_reset","continue":true}` {
		t.Fatalf("hard reserve: %v", c)
	}
	if c[0].Remaining > 16384 {
		t.Errorf("committed with %d remaining, above the reserve", c[0].Remaining)
	}
	for _, l := range r.Lines[:index(r, c[0])] {
		if l.Remaining <= 16384 {
			t.Errorf("an earlier line was already within the reserve: %s", l)
		}
	}
	checkBoundary(t, r, "w2")
	if next := r.Lines[index(r, c[0])+1]; next.Event != "request" || next.Window != "w2" {
		t.Errorf("continues in the fresh window: %s", next)
	}
}

// "A pending manual stop survives in a run-scoped stop-pending phase; empty
// automatic follow-up is cancelled before provider work". "Manual
// hard-reserve commits request no continuation".
func TestSeed000_ManualHardReserve_CancelsEmptyFollowUpBeforeProviderWork(t *testing.T) {
	r := run(t, "wipe_memory_manual_hard_reserve")
	c := fired(r, "turn_end_manual_hard_reserve_commits_without_continuation")
	if len(c) != 1 || !strings.Contains(effects(c[0]), `{"effect":"commit_reset","continue":false}`) {
		t.Fatalf("manual hard reserve: %v", c)
	}
	checkBoundary(t, r, "w2")
	stop := fired(r, "stop_pending_cancels_empty_follow_up")
	if len(stop) != 1 || stop[0].Window != "w2" || stop[0].Event != "request" {
		t.Fatalf("the empty follow-up in the fresh window must be stopped: %v", stop)
	}
	if !strings.Contains(strings.Join(stop[0].Notes, ";"), "the request is cancelled (stop)") {
		t.Errorf("the host must cancel the request: %s", stop[0])
	}
	// No provider work: the only entry after the boundary is the aborted
	// request.
	if got := pathFrom(r, "compaction(retain-none, w2)"); strings.Join(got[4:], ",") != "assistant(aborted)" {
		t.Errorf("after the boundary: %v", got[4:])
	}
	if last := r.Lines[len(r.Lines)-1]; last.Label() != "settled(aborted)" {
		t.Errorf("the run is cancelled: %s", last)
	}
}

// "real queued user input is answered before stopping." "Pending messages or
// a real user message after the reset marker bypass cancellation so queued
// work is not swallowed." "Further turns cannot reset that stopped run
// again."
func TestSeed000_ManualHardReserve_AnswersQueuedInputBeforeStopping(t *testing.T) {
	r := run(t, "wipe_memory_manual_hard_reserve_queued")
	if n := len(effectsNamed(r, "commit_reset")); n != 1 {
		t.Errorf("%d commits; the stopped run cannot reset again", n)
	}
	if len(fired(r, "turn_end_stop_pending_cannot_reset_again")) == 0 {
		t.Error("turns after the reset must hit turn_end_stop_pending_cannot_reset_again")
	}
	b := checkBoundary(t, r, "w2")
	if p := position(t, r, `assistant "The linter is clean."`); p < b {
		t.Error("the queued follow-up must be answered in the fresh window")
	}
	s := fired(r, "settle_stop_pending_needs_only_a_stop")
	if len(s) != 1 || effects(s[0]) != `{"effect":"stop"}` {
		t.Errorf("settlement needs only a stop: %v", s)
	}
	if last := r.Lines[len(r.Lines)-1]; last.Label() != "settled" {
		t.Errorf("the run stops at settlement, not by cancellation: %s", last)
	}
}

// "automatic provider-overflow recovery remains separately bounded." "Other
// pending overflow recovery gets its one bounded attempt when enabled and
// unqueued." "spent: The one recovery has been used until the chain
// settles."
func TestSeed000_BoundedOverflowRecovery_OneResetPerFailureChain(t *testing.T) {
	r := run(t, "wipe_memory_overflow")
	rec := fired(r, "settle_overflow_recovery_gets_one_attempt")
	if len(rec) != 2 {
		t.Fatalf("%d recoveries, want one per failure chain (2 chains)", len(rec))
	}
	for _, l := range rec {
		if effects(l) != `{"effect":"commit_reset","continue":true}` || l.Label() != "before_settle(error)" {
			t.Errorf("recovery: %s", l)
		}
	}
	spent := fired(r, "turn_end_overflow_after_spent_recovery_is_not_rearmed")
	if len(spent) != 1 || spent[0].Window != "w2" {
		t.Fatalf("the overflow after the recovery is not re-armed: %v", spent)
	}
	after := r.Lines[index(r, spent[0])+2]
	if after.Event != "before_settle" || len(after.Effects) != 0 {
		t.Errorf("no second recovery in the chain: %s", after)
	}
	checkBoundary(t, r, "w2")
	checkBoundary(t, r, "w3")
}

// "Manual overflow clears and stops without retry, even with automatic reset
// disabled." "/compact while active: Cancel native compaction".
func TestSeed000_ManualOverflow_CommitsAndStopsWithAutoResetOff(t *testing.T) {
	r := run(t, "wipe_memory_manual_overflow")
	bc := on(r, "before_compact")
	if len(bc) != 1 || !bc[0].Fired("automatic_compact_cancelled_while_active") {
		t.Fatalf("Pi's overflow compaction must be cancelled while the policy is on: %v", bc)
	}
	if n := len(on(r, "compact_done")); n != 0 {
		t.Errorf("%d compactions ran", n)
	}
	c := fired(r, "settle_manual_overflow_commits_without_continuation")
	if len(c) != 1 || effects(c[0]) != `{"effect":"commit_reset","continue":false,"stop":true}` {
		t.Fatalf("manual overflow: %v", c)
	}
	checkBoundary(t, r, "w2")
	if n := len(on(r, "request")); on(r, "request")[n-1].Window != "w1" {
		t.Error("no request after the manual overflow reset")
	}
}

// Validation: "successive resets" and "warning/marker order": each window's
// warning is durable before its boundary, and the boundaries follow one
// another, each ordered and committed.
func TestSeed000_SuccessiveResets_WarningAndMarkerOrder(t *testing.T) {
	r := run(t, "wipe_memory_successive_resets")
	b2, b3 := checkBoundary(t, r, "w2"), checkBoundary(t, r, "w3")
	if b2 >= b3 {
		t.Fatal("w2's boundary must come before w3's")
	}
	d := describe(r.Session.Path())
	want := []string{`assistant "Notes complete." [wipe_memory]`, "toolResult(wipe_memory)", "hidden(checkpoint_warning)",
		"compaction(retain-none, w2)", "marker(w2)", "boot(w2)", "continuation(w2)"}
	if got := d[b2-3 : b2+4]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("warning/marker order in w1:\n got %v\nwant %v", got, want)
	}
	if d[b3-1] != "hidden(checkpoint_warning)" {
		t.Errorf("w2's warning must come right before its boundary: %v", d[b3-3:b3+1])
	}
	var tagged []string
	for _, e := range r.Session.Path() {
		if sim.DescribeEntry(e) == "hidden(checkpoint_warning)" {
			tagged = append(tagged, e.WindowID())
		}
	}
	if strings.Join(tagged, ",") != "w1,w2" {
		t.Errorf("each warning belongs to the window it closes out: %v, want w1,w2", tagged)
	}
}

// "The raw session branch is preserved for history." Every entry ever
// appended stays in the session, byte for byte, and on the active branch.
func TestSeed000_RawHistoryPreserved(t *testing.T) {
	r := run(t, "wipe_memory_successive_resets")
	all := map[string][]byte{}
	for _, e := range r.Session.Entries() {
		all[e.ID()] = e.Bytes()
	}
	n := 0
	for _, l := range r.Lines {
		for _, e := range l.Entries {
			n++
			if string(all[e.ID()]) != string(e.Bytes()) {
				t.Errorf("entry %s changed or vanished", e.ID())
			}
		}
	}
	if n != len(all) {
		t.Errorf("the timeline shows %d entries, the session holds %d", n, len(all))
	}
	if len(r.Session.Path()) != len(all) {
		t.Errorf("the active branch holds %d of %d entries: history must stay on the raw branch", len(r.Session.Path()), len(all))
	}
	if position(t, r, `user "Migrate the three servi…"`) != 1 {
		t.Error("the first prompt must still be on the branch")
	}
}

// "New checkpoint-backed branches use Pi's canonical retain-none projection,
// which preserves the empty summary wrapper and system/tool state while
// excluding earlier conversational context."
func TestSeed000_Projection_RetainNoneKeepsSystemAndEmptySummaryOnly(t *testing.T) {
	r := run(t, "wipe_memory_direct_wipe")
	p := session.Project(r.Session.Path())
	if p.Mode != session.ModeCheckpoint || p.WindowID != "w2" {
		t.Fatalf("projection %v of window %s, want checkpoint of w2", p.Mode, p.WindowID)
	}
	roles := strings.Join(p.Context.Roles(), ",")
	if roles != "system,compactionSummary,custom,custom,assistant,toolResult,assistant" {
		t.Errorf("roles %s", roles)
	}
	msgs := p.Context.Messages()
	if !strings.Contains(string(msgs[0]), `"name":"wipe_memory"`) || !strings.Contains(string(msgs[0]), `"name":"read"`) {
		t.Errorf("the system head must keep the tool state: %s", msgs[0])
	}
	if !strings.Contains(string(msgs[1]), `"summary":""`) {
		t.Errorf("the empty summary wrapper must be kept: %s", msgs[1])
	}
	for _, m := range msgs {
		if strings.Contains(string(m), "Tidy the README") {
			t.Errorf("earlier conversation leaks into the fresh window: %s", m)
		}
	}
	if !strings.Contains(string(msgs[2]), "fresh context window") || !strings.Contains(string(msgs[3]), "Continue the task") {
		t.Errorf("boot and continuation come first: %s / %s", msgs[2], msgs[3])
	}
}

// "A new boundary is ordered as: 1. compaction ... 4. A hidden continuation
// message." and "fresh-window continuation": the next request after the
// commit is in the new window and what the model answers follows the
// continuation.
func TestSeed000_FreshWindowContinuation(t *testing.T) {
	r := run(t, "wipe_memory_direct_wipe")
	b := checkBoundary(t, r, "w2")
	path := r.Session.Path()
	next := path[b+4]
	if next.Role() != "assistant" || next.ParentID() != path[b+3].ID() {
		t.Errorf("the model's first answer in w2 must follow the continuation: %s", sim.DescribeEntry(next))
	}
	req := on(r, "request")
	if req[1].Window != "w2" || req[1].Tokens > 1000 {
		t.Errorf("the continuation request is in w2 with the fresh window's small context: %s", req[1])
	}
}

// Validation: "real SessionManager file reopen after two retain-none
// checkpoints". The file written after two resets reads back with both
// boundaries committed, the latest window active, and the simulation goes on
// from it.
func TestSeed000_ReopenSessionFileAfterTwoRetainNoneCheckpoints(t *testing.T) {
	r := run(t, "wipe_memory_successive_resets")
	file := filepath.Join(t.TempDir(), "session.jsonl")
	if err := r.Session.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	s, err := session.ReadFile(file, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	for _, w := range []string{"w2", "w3"} {
		if err := session.CheckCommitted(path, w); err != nil {
			t.Errorf("after reopening, %s: %v", w, err)
		}
	}
	if p := session.Project(path); p.Mode != session.ModeCheckpoint || p.WindowID != "w3" {
		t.Errorf("after reopening the projection is %v of %s, want checkpoint of w3", p.Mode, p.WindowID)
	}
	if len(s.Entries()) != len(r.Session.Entries()) {
		t.Errorf("%d entries read back, %d written", len(s.Entries()), len(r.Session.Entries()))
	}
	// The simulation continues from the file: the window stays w3 and the
	// next reset is w4.
	sc := parse(t, `
scenario "Continue after reopening" { policy = "wipe_memory" }
user "Next service." {}
assistant {
  text   = "Done."
  tokens = 9000
  call "wipe_memory" {}
}
assistant {
  text   = "Window four."
  tokens = 2000
}
`)
	r2 := runScenario(t, sc, sim.Options{Session: s})
	if start := r2.Lines[0]; start.Window != "w3" || !start.Fired("session_start_or_tree_clears_and_repairs_tail") || len(start.Entries) != 0 {
		t.Errorf("start after reopening: %s", start)
	}
	checkBoundary(t, r2, "w4")
	checkBoundary(t, r2, "w3")
}

// The reopen step: session_shutdown, the file written and read back,
// session_start "resume" with fresh policy state; the window survives in
// the durable history.
func TestSeed000_ReopenStep_ResumesInTheLatestWindow(t *testing.T) {
	r := run(t, "wipe_memory_reopen")
	start := on(r, "session_start")
	if len(start) != 2 || start[1].Label() != "session_start(resume)" || start[1].Window != "w3" {
		t.Fatalf("resume: %v", start)
	}
	if len(start[1].Entries) != 0 {
		t.Errorf("a committed boundary needs no repair: %s", start[1])
	}
	for _, w := range []string{"w2", "w3", "w4"} {
		checkBoundary(t, r, w)
	}
}

// "Startup/tree repair is narrow: it may complete a repairable marker tail
// ... repair never moves a boundary or promotes an arbitrary compaction".
func TestSeed000_StartupRepairCompletesAMarkerTail(t *testing.T) {
	r := run(t, "wipe_memory_direct_wipe")
	// Keep the session up to the marker: boot and continuation are lost.
	var kept []string
	for _, e := range r.Session.Entries() {
		kept = append(kept, string(e.Bytes()))
		if session.IsMarker(e) {
			break
		}
	}
	h := r.Session.Header()
	src := string(h.Bytes()) + "\n" + strings.Join(kept, "\n") + "\n"
	s, err := session.Read(strings.NewReader(src), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r2 := runScenario(t, parse(t, `scenario "Start" { policy = "wipe_memory" }`), sim.Options{Session: s})
	start := r2.Lines[0]
	if got := strings.Join(describe(start.Entries), ","); got != "boot(w2),continuation(w2)" {
		t.Fatalf("repair appended %q, want boot and continuation of w2\n%s", got, start)
	}
	checkBoundary(t, r2, "w2")
	n := 0
	for _, e := range r2.Session.Entries() {
		if e.Type() == session.TypeCompaction {
			n++
		}
	}
	if n != 1 {
		t.Errorf("repair must not add a compaction: %d", n)
	}
}

// "/tree summary generation is suppressed with an empty summary when either
// branch crosses a reset, because the raw summary generator bypasses the
// provider projection." (seed 000: "Tree-summary suppression has no
// dedicated retained test").
func TestSeed000_TreeSummarySuppressedWhenABranchCrossesAReset(t *testing.T) {
	r := run(t, "wipe_memory_tree_summary")
	trees := on(r, "session_tree")
	if len(trees) != 2 {
		t.Fatalf("%d tree lines", len(trees))
	}
	if got := describe(trees[0].Entries); len(got) != 1 || got[0] != "branch_summary" {
		t.Errorf("a branch inside one window is summarised: %v", got)
	}
	if len(trees[1].Entries) != 0 || !strings.Contains(strings.Join(trees[1].Notes, ";"), "tree summary suppressed") {
		t.Errorf("a branch across the reset must not be summarised: %s", trees[1])
	}
	if trees[1].Window != "w1" {
		t.Errorf("back before the reset the window is w1: %s", trees[1])
	}
	if n := count(r, "branch_summary"); n != 1 {
		t.Errorf("%d branch summaries, want 1", n)
	}
}

// "agent_settled, session start/tree navigation/shutdown, /pi-context off,
// and abort clear transient request state." Switched off, the tool and the
// command refuse.
func TestSeed000_ToggleOffClearsTransientState(t *testing.T) {
	r := run(t, "wipe_memory_toggle_off")
	if off := fired(r, "toggle_off_clears_transient_state"); len(off) != 1 || off[0].Label() != "toggle(off)" {
		t.Fatalf("toggle off: %v", off)
	}
	if len(fired(r, "tool_refused_while_disabled")) != 1 || len(fired(r, "wipe_command_refused_while_disabled")) != 1 {
		t.Error("switched off, the tool and the command refuse")
	}
	noReset(t, r)
}

// "After a budget warning is durable, the extension does not repeat it in
// that window", across a reopen: the durable slots are persisted on the
// branch and restored at session start.
func TestSeed000_DurableWarning_NotRepeatedAfterReopen(t *testing.T) {
	r := run(t, "wipe_memory_reopen_durable")
	if n := len(fired(r, "budget_warning_staged_once_per_window")); n != 1 {
		t.Fatalf("the warning went out %d times, want once in the window", n)
	}
	var states int
	for _, e := range r.Session.Path() {
		if sim.DescribeEntry(e) == "custom("+sim.StateType+")" {
			states++
		}
	}
	if states != 1 {
		t.Errorf("%d durable-state entries, want one (when the warning became durable)", states)
	}
}
