package engine_test

// A hand-written Go reducer of wipe_memory's rules (seed 000), the
// baseline the compiled policy is measured against. It decides exactly
// what policies/wipe_memory.hcl decides — TestBaselineAgreesWithPolicy
// checks that on a long generated stream — with a switch over the event
// and typed fields, the way the rules would be written without an engine.

import (
	"github.com/resetpolicy/resetpolicy/engine"
)

type (
	reqPhase  uint8
	reqSource uint8
	ovPhase   uint8
	draftKind uint8
)

const (
	reqNone reqPhase = iota
	reqCloseOut
	reqStopPending
	reqToolRequested
)

const (
	srcNone reqSource = iota
	srcManual
	srcAutomatic
	srcTool
)

const (
	ovIdle ovPhase = iota
	ovPending
	ovPendingSpent
	ovSpent
)

const (
	draftNone draftKind = iota
	draftReminder
	draftWarning
)

type baselineState struct {
	request        reqPhase
	requestWindow  string
	source         reqSource
	overflow       ovPhase
	draft          draftKind
	draftWindow    string
	reminderWindow string
	warningWindow  string
}

// facts is what the reducer reads of an event; the benchmark converts the
// stream once, as a host adapter would hand typed facts to hand-written code.
type facts struct {
	event                                               string
	windowID, name, outcome, errKind, reason            string
	enabled, autoReset, autoCompaction, idle            bool
	queued, syntheticAbort, on, crossesReset, userInput bool
	signalAborted, afterReset                           bool
	tokens, contextWindow, reserve                      float64
}

const (
	reserveMargin  = 0
	warningRunway  = 12288
	reminderMargin = 24576
)

type baseline struct {
	s       baselineState
	rules   []string
	effects []engine.Effect
}

var (
	effInjectWarning    = engine.Effect{Name: "inject", Args: []engine.Arg{{Name: "message", Value: "checkpoint_warning"}, {Name: "deliver", Value: "request"}}}
	effInjectReminder   = engine.Effect{Name: "inject", Args: []engine.Arg{{Name: "message", Value: "budget_reminder"}, {Name: "deliver", Value: "request"}}}
	effInjectManualTurn = engine.Effect{Name: "inject", Args: []engine.Arg{{Name: "message", Value: "manual_checkpoint_warning"}, {Name: "deliver", Value: "turn"}}}
	effInjectManualStr  = engine.Effect{Name: "inject", Args: []engine.Arg{{Name: "message", Value: "manual_checkpoint_warning"}, {Name: "deliver", Value: "steer"}}}
	effNotifyWarning    = engine.Effect{Name: "notify", Args: []engine.Arg{{Name: "level", Value: "warning"}, {Name: "text", Value: "warning_notice"}}}
	effNotifyReminder   = engine.Effect{Name: "notify", Args: []engine.Arg{{Name: "level", Value: "info"}, {Name: "text", Value: "reminder_notice"}}}
	effNotifyDropped    = engine.Effect{Name: "notify", Args: []engine.Arg{{Name: "level", Value: "warning"}, {Name: "text", Value: "manual_close_out_dropped"}}}
	effCommitContinue   = engine.Effect{Name: "commit_reset", Args: []engine.Arg{{Name: "continue", Value: true}}}
	effCommitNoContinue = engine.Effect{Name: "commit_reset", Args: []engine.Arg{{Name: "continue", Value: false}}}
	effCommitStop       = engine.Effect{Name: "commit_reset", Args: []engine.Arg{{Name: "continue", Value: false}, {Name: "stop", Value: true}}}
	effStop             = engine.Effect{Name: "stop"}
	effRepair           = engine.Effect{Name: "repair"}
	effCancelManual     = engine.Effect{Name: "cancel_compaction", Args: []engine.Arg{{Name: "text", Value: "compact_cancelled_notice"}}}
	effCancelAfterReset = engine.Effect{Name: "cancel_compaction", Args: []engine.Arg{{Name: "text", Value: "compact_after_reset_notice"}}}
	effCancel           = engine.Effect{Name: "cancel_compaction"}
	effSuppressSummary  = engine.Effect{Name: "suppress_summary"}
)

func reply(text string) engine.Effect {
	return engine.Effect{Name: "reply", Args: []engine.Arg{{Name: "text", Value: text}}}
}

var (
	effToolOff       = reply("tool_off")
	effToolStopping  = reply("tool_ack_stopping")
	effToolDuplicate = reply("tool_ack_duplicate")
	effToolManual    = reply("tool_ack_manual")
	effToolAck       = reply("tool_ack")
	effCmdOff        = reply("command_off")
	effCmdStopping   = reply("command_ack_stopping")
	effCmdDuplicate  = reply("command_ack_duplicate")
	effCmdAck        = reply("command_ack")
)

func (b *baseline) fire(rule string, effs ...engine.Effect) {
	b.rules = append(b.rules, rule)
	b.effects = append(b.effects, effs...)
}

func (n *baselineState) clearRequest() {
	n.request, n.source, n.requestWindow = reqNone, srcNone, ""
}

func (n *baselineState) clearAll() {
	n.clearRequest()
	n.overflow = ovIdle
}

func (b *baseline) decide(e *facts) {
	b.rules, b.effects = b.rules[:0], b.effects[:0]
	s := b.s // the state before the event; every guard reads it
	n := s   // the next state
	remaining := e.contextWindow - e.tokens
	warningDue := e.autoCompaction && remaining <= e.reserve+warningRunway
	reminderDue := remaining <= e.reserve+reminderMargin
	hardReserve := e.autoReset && remaining <= e.reserve+reserveMargin
	sameWindow := s.requestWindow == e.windowID
	completed := e.outcome == "completed"

	// group budget
	switch e.event {
	case "request":
		switch {
		case e.enabled && warningDue && s.warningWindow != e.windowID:
			n.draft, n.draftWindow = draftWarning, e.windowID
			b.fire("budget_warning_staged_once_per_window", effInjectWarning)
		case e.enabled && reminderDue && s.reminderWindow != e.windowID:
			n.draft, n.draftWindow = draftReminder, e.windowID
			b.fire("budget_reminder_staged_once_per_window", effInjectReminder)
		}
	case "turn_end":
		durable := completed && !e.syntheticAbort && s.draftWindow == e.windowID
		switch {
		case s.draft == draftWarning && durable:
			n.draft, n.draftWindow, n.warningWindow, n.reminderWindow = draftNone, "", s.draftWindow, s.draftWindow
			b.fire("budget_warning_durable_at_completed_turn", effNotifyWarning)
		case s.draft == draftReminder && durable:
			n.draft, n.draftWindow, n.reminderWindow = draftNone, "", s.draftWindow
			b.fire("budget_reminder_durable_at_completed_turn", effNotifyReminder)
		case s.draft != draftNone:
			n.draft, n.draftWindow = draftNone, ""
			b.fire("budget_draft_discarded_by_failed_turn_or_window_mismatch")
		}
	case "session_start", "settled", "session_tree", "session_shutdown", "toggle":
		switch {
		case e.event == "session_start" && e.reason == "new":
			n.draft, n.draftWindow, n.reminderWindow, n.warningWindow = draftNone, "", "", ""
			b.fire("new_session_forgets_budget_notices")
		case s.draft != draftNone:
			n.draft, n.draftWindow = draftNone, ""
			b.fire("budget_draft_discarded_on_transition")
		}
	}

	// group request
	switch e.event {
	case "tool":
		if e.name != "wipe_memory" {
			break
		}
		switch {
		case !e.enabled:
			b.fire("tool_refused_while_disabled", effToolOff)
		case s.request == reqStopPending:
			b.fire("tool_request_only_acknowledges_stop_pending", effToolStopping)
		case s.request == reqToolRequested && sameWindow:
			b.fire("tool_request_deduplicates_same_window", effToolDuplicate)
		case s.request == reqCloseOut && s.source == srcManual && sameWindow:
			b.fire("tool_request_inside_manual_close_out_only_acknowledges", effToolManual)
		case s.request == reqCloseOut && s.source == srcAutomatic && sameWindow:
			n.request, n.source = reqToolRequested, srcAutomatic
			b.fire("tool_request_upgrades_budget_close_out", effToolAck)
		default:
			n.request, n.source, n.requestWindow = reqToolRequested, srcTool, e.windowID
			b.fire("tool_request_marks_window", effToolAck)
		}
	case "command":
		if e.name != "wipe-memory" {
			break
		}
		switch {
		case !e.enabled:
			b.fire("wipe_command_refused_while_disabled", effCmdOff)
		case s.request == reqStopPending:
			b.fire("wipe_command_only_acknowledges_stop_pending", effCmdStopping)
		case s.request == reqCloseOut && s.source == srcManual && sameWindow:
			b.fire("wipe_command_deduplicates_manual_close_out", effCmdDuplicate)
		case s.request == reqCloseOut && s.source == srcAutomatic && sameWindow:
			n.source = srcManual
			b.fire("wipe_command_upgrades_automatic_close_out", effCmdAck)
		case s.request == reqToolRequested && sameWindow:
			n.request, n.source = reqCloseOut, srcManual
			b.fire("wipe_command_converts_tool_request_to_settle_stop", effCmdAck)
		default:
			n.request, n.source, n.requestWindow = reqCloseOut, srcManual, e.windowID
			b.fire("wipe_command_arms_manual_close_out", effCmdAck)
		}
	case "request":
		switch {
		case s.request == reqStopPending && !e.queued && !e.userInput && e.windowID != s.requestWindow:
			b.fire("stop_pending_cancels_empty_follow_up", effStop)
		case s.request == reqNone && e.enabled && warningDue:
			n.request, n.source, n.requestWindow = reqCloseOut, srcAutomatic, e.windowID
			b.fire("budget_warning_arms_automatic_close_out")
		}
	case "turn_end":
		overflowErr := e.outcome == "error" && e.errKind == "overflow"
		canRecover := overflowErr && !e.queued && e.enabled && e.autoReset
		manualCloseOut := s.request == reqCloseOut && s.source == srcManual
		spentChain := s.overflow == ovSpent || s.overflow == ovPendingSpent
		switch {
		case e.outcome == "aborted" && !e.syntheticAbort:
			n.clearAll()
			b.fire("turn_end_user_abort_clears_everything")
		case e.syntheticAbort:
			n.clearAll()
			b.fire("turn_end_synthetic_abort_clears_without_commit")
		case s.request == reqStopPending && completed:
			n.overflow = ovIdle
			b.fire("turn_end_stop_pending_cannot_reset_again")
		case s.request == reqStopPending:
			b.fire("turn_end_stop_pending_failure_cannot_reset_again")
		case manualCloseOut && overflowErr && e.queued && e.enabled:
			n.request, n.source, n.requestWindow, n.overflow = reqStopPending, srcNone, e.windowID, ovIdle
			b.fire("turn_end_manual_overflow_with_queued_input_clears_before_it", effCommitNoContinue)
		case !spentChain && overflowErr && e.queued && e.enabled && e.autoReset:
			n.clearRequest()
			n.overflow = ovSpent
			b.fire("turn_end_overflow_with_queued_input_recovers_before_it", effCommitContinue)
		case manualCloseOut && !spentChain && overflowErr:
			n.overflow = ovPending
			b.fire("turn_end_overflow_preserves_manual_close_out")
		case manualCloseOut && spentChain && overflowErr:
			n.overflow = ovPendingSpent
			b.fire("turn_end_overflow_preserves_manual_close_out_in_spent_chain")
		case !spentChain && canRecover:
			n.clearRequest()
			n.overflow = ovPending
			b.fire("turn_end_overflow_arms_recovery")
		case spentChain && canRecover:
			n.clearRequest()
			n.overflow = ovPendingSpent
			b.fire("turn_end_overflow_after_spent_recovery_is_not_rearmed")
		case manualCloseOut && e.outcome == "error":
			n.clearRequest()
			b.fire("turn_end_failure_drops_manual_close_out_and_says_so", effNotifyDropped)
		case e.outcome == "error":
			n.clearRequest()
			b.fire("turn_end_failure_drops_request_keeps_overflow_chain")
		case s.request == reqToolRequested && completed && e.enabled && sameWindow:
			n.clearRequest()
			n.overflow = ovIdle
			b.fire("turn_end_commits_tool_request", effCommitContinue)
		case manualCloseOut && completed && e.enabled && hardReserve:
			n.request, n.source, n.requestWindow, n.overflow = reqStopPending, srcNone, e.windowID, ovIdle
			b.fire("turn_end_manual_hard_reserve_commits_without_continuation", effCommitNoContinue)
		case completed && e.enabled && hardReserve:
			n.clearAll()
			b.fire("turn_end_hard_reserve_commits", effCommitContinue)
		case s.request == reqToolRequested:
			n.clearAll()
			b.fire("turn_end_drops_tool_request_that_cannot_commit")
		case s.request == reqCloseOut:
			n.overflow = ovIdle
			b.fire("turn_end_close_out_stays_armed")
		case s.overflow != ovIdle:
			n.overflow = ovIdle
			b.fire("turn_end_success_ends_overflow_chain")
		}
	case "before_settle":
		manualCloseOut := s.request == reqCloseOut && s.source == srcManual
		switch {
		case e.outcome == "aborted":
			n.clearAll()
			b.fire("settle_abort_clears_everything")
		case s.request == reqStopPending && e.queued:
			b.fire("settle_stop_pending_waits_for_queued_work")
		case s.request == reqStopPending && e.enabled && sameWindow:
			n.clearAll()
			b.fire("settle_stop_pending_retries_construction_in_old_window", effCommitStop)
		case s.request == reqStopPending:
			n.clearAll()
			b.fire("settle_stop_pending_needs_only_a_stop", effStop)
		case manualCloseOut && (s.overflow == ovPending || s.overflow == ovPendingSpent) && e.enabled && !e.queued:
			n.clearAll()
			b.fire("settle_manual_overflow_commits_without_continuation", effCommitStop)
		case s.overflow == ovPending && !e.queued && !(e.enabled && e.autoReset):
			n.clearAll()
			b.fire("settle_overflow_chain_ends_without_reset_when_off")
		case s.overflow == ovPending && e.enabled && e.autoReset && !e.queued:
			n.clearRequest()
			n.overflow = ovSpent
			b.fire("settle_overflow_recovery_gets_one_attempt", effCommitContinue)
		case s.overflow == ovPendingSpent && !e.queued:
			n.clearRequest()
			n.overflow = ovSpent
			b.fire("settle_spent_overflow_chain_gets_no_second_reset")
		case manualCloseOut && completed && sameWindow && e.enabled && !e.queued:
			n.clearAll()
			b.fire("settle_commits_manual_close_out", effCommitStop)
		case manualCloseOut && e.queued:
			b.fire("settle_manual_close_out_waits_for_queued_work")
		case manualCloseOut:
			n.clearRequest()
			b.fire("settle_drops_manual_close_out_that_cannot_commit")
		case s.request == reqCloseOut && s.source == srcAutomatic:
			n.clearRequest()
			b.fire("settle_clears_automatic_close_out")
		}
	case "settled":
		n.clearAll()
		b.fire("settled_clears_transient_state")
	case "session_start", "session_tree":
		n.clearAll()
		if e.enabled {
			b.fire("session_start_or_tree_clears_and_repairs_tail", effRepair)
		} else {
			b.fire("session_change_clears_transient_state")
		}
	case "session_shutdown":
		n.clearAll()
		b.fire("session_change_clears_transient_state")
	case "toggle":
		if !e.on {
			n.clearAll()
			b.fire("toggle_off_clears_transient_state")
		}
	}

	// group manual_warning
	if e.event == "command" && e.name == "wipe-memory" && e.enabled && s.request != reqStopPending &&
		!(s.request == reqCloseOut && s.source == srcManual && sameWindow) {
		if e.idle {
			b.fire("manual_checkpoint_warning_starts_turn_when_idle", effInjectManualTurn)
		} else {
			b.fire("manual_checkpoint_warning_steers_running_turn", effInjectManualStr)
		}
	}

	// group compaction: every compaction is cancelled while the policy is
	// on, and after a reset while it is off.
	if e.event == "before_compact" {
		manual := e.reason == "manual"
		switch {
		case e.signalAborted:
			b.fire("compaction_aborted_signal_cancels", effCancel)
		case e.enabled && manual:
			b.fire("manual_compact_cancelled_with_wipe_memory_notice", effCancelManual)
		case e.enabled:
			b.fire("automatic_compact_cancelled_while_active", effCancel)
		case e.afterReset && manual:
			b.fire("manual_compact_cancelled_after_reset_while_off", effCancelAfterReset)
		case e.afterReset:
			b.fire("automatic_compact_cancelled_after_reset_while_off", effCancel)
		}
	}
	// group tree
	if e.event == "before_tree" && e.crossesReset {
		b.fire("tree_summary_suppressed_across_reset", effSuppressSummary)
	}
	b.s = n
}
