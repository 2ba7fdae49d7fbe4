# wipe_memory: the agent ends its own context window.
#
# The agent calls the `wipe_memory` tool, or the user runs `/wipe-memory`, and
# the active window is replaced by a retain-none reset boundary. A budget
# close-out warning, a hard-reserve safety cut and one bounded overflow
# recovery make sure the window is wiped before it overflows.
#
# Four rule groups, one concern each:
#   budget         once-per-window reminder and close-out warning drafts (the
#                  hidden entries of a request), their durability at turn_end
#   request        the reducer: request phase x overflow phase
#   manual_warning the hidden checkpoint warning sent by `/wipe-memory`
#   compaction     native compaction, cancelled while the policy is on
#   tree           /tree summaries across a reset

policy "wipe_memory" {
  description = "The agent wipes its own context window with wipe_memory or /wipe-memory; budget close-out warning, hard reserve and one bounded overflow recovery."
}

# ---------------------------------------------------------------- params

param "reserve_margin" {
  type        = number
  default     = 0
  description = "Tokens added to the host's reserve for the hard-reserve safety cut: a completed turn whose remaining budget (context window minus tokens) is at or below reserve + reserve_margin commits a reset at turn_end when automatic resets are on."
  validation {
    condition     = "value >= 0 && value == float(int(value))"
    error_message = "reserve_margin must be a whole number of tokens, 0 or more."
  }
}

param "warning_runway" {
  type        = number
  default     = 12288
  description = "Tokens of runway above the reserve at which the hidden close-out warning goes into the request and an automatic close-out is armed (only while the host's automatic compaction is on)."
  validation {
    condition     = "value >= 0 && value == float(int(value))"
    error_message = "warning_runway must be a whole number of tokens, 0 or more."
  }
}

param "reminder_margin" {
  type        = number
  default     = 24576
  description = "Tokens of runway above the reserve at which the early reminder to keep notes current is added to the request, once per window."
  validation {
    condition     = "value >= 0 && value == float(int(value))"
    error_message = "reminder_margin must be a whole number of tokens, 0 or more."
  }
}

# ---------------------------------------------------------------- state

# Request phase of the reducer.
slot "request" {
  values      = ["none", "close-out", "stop-pending", "tool-requested"]
  initial     = "none"
  description = "none: nothing pending; close-out: a manual or automatic close-out is armed across note/tool turns; stop-pending: a manual hard-reserve reset was committed and the run still has to stop; tool-requested: a direct wipe_memory call commits at the end of its turn."
}

slot "request_window" {
  type        = string
  initial     = ""
  description = "The window the pending request belongs to (for stop-pending: the old window the reset was proposed for)."
}

slot "request_source" {
  values      = ["none", "manual", "automatic", "tool"]
  initial     = "none"
  description = "Who asked: manual (/wipe-memory), automatic (the budget close-out warning) or tool (a direct wipe_memory call)."
}

# Overflow phase of the reducer, orthogonal to the request phase.
slot "overflow" {
  values      = ["idle", "pending", "pending-spent", "spent"]
  initial     = "idle"
  description = "idle: no overflow recovery pending; pending: an overflow failure may recover once at pre-settlement; pending-spent: recovery was already spent in this failure chain; spent: the one recovery is used until the chain settles."
}

# Budget staging.
slot "draft" {
  values      = ["none", "reminder", "warning"]
  initial     = "none"
  description = "The budget entry added to the current request, consumed (made durable) at the next completed turn_end and discarded otherwise."
}

slot "draft_window" {
  type        = string
  initial     = ""
  description = "The window the budget draft was staged for."
}

# "After a budget warning is durable, the extension does not repeat it in that
# window." Durable means in the session: these two latches are durable slots,
# persisted on the session branch and restored from it when the session is
# reopened, forked or navigated, so "once per window" holds across all three
# (a branch that never got the warning gets it).
slot "reminder_window" {
  type        = string
  initial     = ""
  durable     = true
  description = "The window whose early budget reminder is durable; it is not repeated in that window."
}

slot "warning_window" {
  type        = string
  initial     = ""
  durable     = true
  description = "The window whose budget close-out warning is durable; it is not repeated in that window."
}

# ---------------------------------------------------------------- derived

# event.tokens is the host's estimate of the active window. Where the host
# cannot measure it yet (Pi says tokens: null after any compaction, this
# policy's own reset included, until the model answers in the new window),
# the Pi extension reports Pi's own checkpoint-aware estimate of what the
# request sends — the boundary plus the messages after it — never 0, so a
# large first prompt in a fresh window is not read as an empty window (the
# README's seed-reading notes).
derived "remaining" {
  value = "event.context_window - event.tokens"
}

# "The early reminder is staged once per window when remaining budget reaches
# reserve + reminderMarginTokens."
derived "reminder_at" {
  value = "event.reserve + param.reminder_margin"
}

derived "reminder_due" {
  value = "remaining <= reminder_at"
}

# "The final close-out warning is staged/attached at reserve +
# WARNING_RUNWAY_TOKENS, only when automatic compaction is enabled."
derived "warning_at" {
  value = "event.reserve + param.warning_runway"
}

derived "warning_due" {
  value = "event.auto_compaction && remaining <= warning_at"
}

# "if automatic resets are enabled and completed-turn usage reaches Pi's
# reserve, commit a boundary at turn_end."
derived "hard_reserve_at" {
  value = "event.reserve + param.reserve_margin"
}

derived "hard_reserve" {
  value = "event.auto_reset && remaining <= hard_reserve_at"
}

# ---------------------------------------------------------------- surface

tool "wipe_memory" {
  description = <<-EOT
    Wipe your context window and continue in a fresh one. Call this once your
    notes hold everything you need to carry on (task, decisions, files touched,
    next step): the conversation so far leaves your context at the end of this
    turn, and you continue in a new window that starts from your notes. The
    session history itself is kept. Calling it again in the same window changes
    nothing.
  EOT
}

command "wipe-memory" {
  description = "Ask the agent to save its notes, then wipe its context window and stop."
}

# Hidden checkpoint warning. Budget and manual close-outs use the same text
# under two message names, so an aborted manual request cannot suppress a
# later budget warning. "The text allows for either reset timing": a budget
# close-out resets at the end of the turn that calls wipe_memory and
# continues; a manual one resets at settlement and stops, the call only
# acknowledging it.
message "checkpoint_warning" {
  kind = warning
  text = <<-EOT
    Context checkpoint: this context window is about to be wiped. Before it is,
    bring your notes up to date with everything you need to carry on: the task
    and its goal, decisions made, files touched, open questions and the exact
    next step. You may take several turns and use tools to do this. Nothing
    outside your notes survives the reset.

    When the notes are complete, call `wipe_memory`. The window is then wiped
    either at the end of that turn, after which you continue in a fresh
    window, or, if the user asked for this close-out, once you finish your
    reply, and the run stops there; finishing your reply ends a close-out the
    user asked for even without the call.
  EOT
}

message "manual_checkpoint_warning" {
  kind = warning
  text = <<-EOT
    Context checkpoint: this context window is about to be wiped. Before it is,
    bring your notes up to date with everything you need to carry on: the task
    and its goal, decisions made, files touched, open questions and the exact
    next step. You may take several turns and use tools to do this. Nothing
    outside your notes survives the reset.

    When the notes are complete, call `wipe_memory`. The window is then wiped
    either at the end of that turn, after which you continue in a fresh
    window, or, if the user asked for this close-out, once you finish your
    reply, and the run stops there; finishing your reply ends a close-out the
    user asked for even without the call.
  EOT
}

message "budget_reminder" {
  kind = reminder
  text = <<-EOT
    Context budget reminder: this context window is filling up. Keep your
    notes current as you work (task, decisions, files touched, next step) so
    that little is lost when the window is wiped. A close-out request follows
    when the window is nearly full.
  EOT
}

message "boot" {
  text = <<-EOT
    This is a fresh context window. The previous window was wiped on purpose;
    its conversation is no longer in your context, though the session history
    keeps it. Your notes are the record of what came before: read them before
    doing anything else.
  EOT
}

message "continuation" {
  text = <<-EOT
    Continue the task in this fresh context window: read your notes, then pick
    up at the next step they record.
  EOT
}

# Replies to the tool and the command.
message "tool_ack" {
  text = "Reset requested: this context window is wiped at the end of this turn and you continue in a fresh window. Make sure your notes are complete before the turn ends."
}

message "tool_ack_duplicate" {
  text = "A reset is already requested for this context window; it happens at the end of this turn."
}

message "tool_ack_manual" {
  text = "Noted. The user asked for this close-out: finish your notes and end your reply; the window is wiped when you stop."
}

message "tool_ack_stopping" {
  text = "This context window has already been reset; the run stops now."
}

message "tool_off" {
  text = "wipe_memory is switched off in this session; nothing was reset."
}

message "command_ack" {
  text = "Closing out: the agent is asked to save its notes. When it stops, its context window is wiped and the run ends."
}

message "command_ack_duplicate" {
  text = "A close-out is already under way for this context window."
}

message "command_ack_stopping" {
  text = "The context window has already been reset; the run stops once queued messages are answered."
}

message "command_off" {
  text = "Context wiping is switched off in this session; turn it on to use /wipe-memory."
}

# UI notices.
message "reminder_notice" {
  text = "Context budget is getting low; the agent was reminded to keep its notes current."
}

message "warning_notice" {
  text = "Context window nearly full; the agent was asked to save its notes and wipe the window."
}

message "manual_close_out_dropped" {
  text = "/wipe-memory did not happen: a turn of the close-out failed (a provider error), and a failed turn never completes a close-out, so nothing was wiped. Run /wipe-memory again to ask for it."
}

message "compact_cancelled_notice" {
  text = "/compact is off while wipe_memory is on: a summary would carry the old history back into the context window. Run /wipe-memory instead: the agent saves its notes, then its window is wiped."
}

message "compact_after_reset_notice" {
  text = "/compact was cancelled: this session branch holds a context reset, and a summary would carry the wiped history back. Turn the policy on and run /wipe-memory to start a fresh window."
}

# The host shows `reset_notice` once it has confirmed a committed reset
# boundary in the session ("UI success notices use confirmation, not the
# repair predicate, and remain committed-only").
message "reset_notice" {
  text = "Context window wiped: the conversation so far has left the agent's context (the session history keeps it); its notes carry the work on."
}

# ---------------------------------------------------------------- budget staging

group "budget" {
  # "The final close-out warning is staged/attached at reserve +
  # WARNING_RUNWAY_TOKENS, only when automatic compaction is enabled."
  # "After a budget warning is durable, the extension does not repeat it in
  # that window."
  rule "budget_warning_staged_once_per_window" {
    on   = "request"
    when = "event.enabled && warning_due && state.warning_window != event.window_id"
    to   = { draft = "warning" }
    set  = { draft_window = "event.window_id" }
    effect "inject" {
      message = "checkpoint_warning"
      deliver = "request"
    }
  }

  # "The early reminder is staged once per window when remaining budget
  # reaches reserve + reminderMarginTokens."
  rule "budget_reminder_staged_once_per_window" {
    on   = "request"
    when = "event.enabled && reminder_due && state.reminder_window != event.window_id"
    to   = { draft = "reminder" }
    set  = { draft_window = "event.window_id" }
    effect "inject" {
      message = "budget_reminder"
      deliver = "request"
    }
  }

  # "Budget drafts are instance-local and are consumed at turn end."
  # "UI reminder notices are emitted only after the matching hidden entry is
  # durable, so failed requests do not report an uncommitted warning."
  # A durable warning also covers the reminder of that window.
  rule "budget_warning_durable_at_completed_turn" {
    on   = "turn_end"
    from = { draft = "warning" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && state.draft_window == event.window_id"
    to   = { draft = "none" }
    set = {
      draft_window    = "''"
      warning_window  = "state.draft_window"
      reminder_window = "state.draft_window"
    }
    effect "notify" {
      level = "warning"
      text  = "message.warning_notice"
    }
  }

  rule "budget_reminder_durable_at_completed_turn" {
    on   = "turn_end"
    from = { draft = "reminder" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && state.draft_window == event.window_id"
    to   = { draft = "none" }
    set = {
      draft_window    = "''"
      reminder_window = "state.draft_window"
    }
    effect "notify" {
      level = "info"
      text  = "message.reminder_notice"
    }
  }

  # "They are discarded on abort, failed turn, transition, or window mismatch."
  rule "budget_draft_discarded_by_failed_turn_or_window_mismatch" {
    on   = "turn_end"
    from = { draft = ["reminder", "warning"] }
    to   = { draft = "none" }
    set  = { draft_window = "''" }
  }

  # A new session has no durable warnings yet.
  rule "new_session_forgets_budget_notices" {
    on   = "session_start"
    when = "event.reason == 'new'"
    to   = { draft = "none" }
    set = {
      draft_window    = "''"
      reminder_window = "''"
      warning_window  = "''"
    }
  }

  # "They are discarded on abort, failed turn, transition, or window mismatch."
  rule "budget_draft_discarded_on_transition" {
    on   = ["settled", "session_start", "session_tree", "session_shutdown", "toggle"]
    from = { draft = ["reminder", "warning"] }
    to   = { draft = "none" }
    set  = { draft_window = "''" }
  }
}

# ---------------------------------------------------------------- the reducer

group "request" {
  # ---- tool_request(windowId): the `wipe_memory` tool

  rule "tool_refused_while_disabled" {
    on   = "tool"
    when = "event.name == 'wipe_memory' && !event.enabled"
    effect "reply" {
      text = "message.tool_off"
    }
  }

  # "New wipe requests only acknowledge it." (stop-pending)
  rule "tool_request_only_acknowledges_stop_pending" {
    on   = "tool"
    from = { request = "stop-pending" }
    when = "event.name == 'wipe_memory'"
    effect "reply" {
      text = "message.tool_ack_stopping"
    }
  }

  # "Matching duplicates deduplicate." / "Repeated requests for that window
  # deduplicate."
  rule "tool_request_deduplicates_same_window" {
    on   = "tool"
    from = { request = "tool-requested" }
    when = "event.name == 'wipe_memory' && state.request_window == event.window_id"
    effect "reply" {
      text = "message.tool_ack_duplicate"
    }
  }

  # "inside a manual close-out it is only an acknowledgement, so a manual wipe
  # is never converted into a turn-end commit that Pi's tool-batch
  # continuation would overrun."
  rule "tool_request_inside_manual_close_out_only_acknowledges" {
    on   = "tool"
    from = { request = "close-out", request_source = "manual" }
    when = "event.name == 'wipe_memory' && state.request_window == event.window_id"
    effect "reply" {
      text = "message.tool_ack_manual"
    }
  }

  # "Inside a budget close-out the call upgrades to a turn-end commit because
  # context pressure cannot wait for settlement" (source "automatic").
  rule "tool_request_upgrades_budget_close_out" {
    on   = "tool"
    from = { request = "close-out", request_source = "automatic" }
    when = "event.name == 'wipe_memory' && state.request_window == event.window_id"
    to   = { request = "tool-requested", request_source = "automatic" }
    effect "reply" {
      text = "message.tool_ack"
    }
  }

  # "tool_request(windowId) marks that window for a turn-end reset."
  # "Direct wipe_memory remains valid without a prior warning." Requests left
  # over from another window are replaced.
  rule "tool_request_marks_window" {
    on   = "tool"
    from = { request = ["none", "tool-requested", "close-out"] }
    when = "event.name == 'wipe_memory'"
    to   = { request = "tool-requested", request_source = "tool" }
    set  = { request_window = "event.window_id" }
    effect "reply" {
      text = "message.tool_ack"
    }
  }

  # ---- close_out(windowId, "manual"): the `/wipe-memory` command

  rule "wipe_command_refused_while_disabled" {
    on   = "command"
    when = "event.name == 'wipe-memory' && !event.enabled"
    effect "reply" {
      text = "message.command_off"
    }
  }

  # "New wipe requests only acknowledge it." (stop-pending)
  rule "wipe_command_only_acknowledges_stop_pending" {
    on   = "command"
    from = { request = "stop-pending" }
    when = "event.name == 'wipe-memory'"
    effect "reply" {
      text = "message.command_ack_stopping"
    }
  }

  # "Repeating an already-pending request deduplicates"
  rule "wipe_command_deduplicates_manual_close_out" {
    on   = "command"
    from = { request = "close-out", request_source = "manual" }
    when = "event.name == 'wipe-memory' && state.request_window == event.window_id"
    effect "reply" {
      text = "message.command_ack_duplicate"
    }
  }

  # "a manual request can upgrade an automatic request for the same window"
  rule "wipe_command_upgrades_automatic_close_out" {
    on   = "command"
    from = { request = "close-out", request_source = "automatic" }
    when = "event.name == 'wipe-memory' && state.request_window == event.window_id"
    to   = { request_source = "manual" }
    effect "reply" {
      text = "message.command_ack"
    }
  }

  # "a manual request converts a pending tool request into a settle-committed
  # stop"
  rule "wipe_command_converts_tool_request_to_settle_stop" {
    on   = "command"
    from = { request = "tool-requested" }
    when = "event.name == 'wipe-memory' && state.request_window == event.window_id"
    to   = { request = "close-out", request_source = "manual" }
    effect "reply" {
      text = "message.command_ack"
    }
  }

  # "`close_out(windowId, source)` arms a close-out for that window."
  # "/wipe-memory: Acknowledge immediately and arm a manual close-out."
  rule "wipe_command_arms_manual_close_out" {
    on   = "command"
    from = { request = ["none", "close-out", "tool-requested"] }
    when = "event.name == 'wipe-memory'"
    to   = { request = "close-out", request_source = "manual" }
    set  = { request_window = "event.window_id" }
    effect "reply" {
      text = "message.command_ack"
    }
  }

  # ---- before each provider request

  # "empty automatic follow-up is cancelled before provider work, while real
  # queued user input is answered before stopping." The reset is committed
  # once the host reports a new window. "Pending messages or a real user
  # message after the reset marker bypass cancellation so queued work is not
  # swallowed."
  rule "stop_pending_cancels_empty_follow_up" {
    on   = "request"
    from = { request = "stop-pending" }
    when = "!event.queued && !event.user_input && event.window_id != state.request_window"
    effect "stop" {}
  }

  # "each eligible low-budget request re-arms transient automatic close-out
  # before checking for the durable warning"
  rule "budget_warning_arms_automatic_close_out" {
    on   = "request"
    from = { request = "none" }
    when = "event.enabled && warning_due"
    to   = { request = "close-out", request_source = "automatic" }
    set  = { request_window = "event.window_id" }
  }

  # ---- turn_end

  # "`turn_end` first clears everything on abort." Pi's actual operation
  # cancellation (a user abort).
  rule "turn_end_user_abort_clears_everything" {
    on   = "turn_end"
    when = "event.outcome == 'aborted' && !event.synthetic_abort"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }

  # A model reply with a synthetic `stopReason: "aborted"`: "none commits an
  # ordinary close-out, while only Pi's actual operation cancellation is a
  # user abort." It is not a user abort, but the turn is still aborted
  # ("turn_end first clears everything on abort"): everything is cleared and
  # nothing commits.
  rule "turn_end_synthetic_abort_clears_without_commit" {
    on   = "turn_end"
    when = "event.synthetic_abort"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }

  # "Manual hard-reserve commits request no continuation and retain
  # stop-pending across the window change. Further turns cannot reset that
  # stopped run again."
  rule "turn_end_stop_pending_cannot_reset_again" {
    on   = "turn_end"
    from = { request = "stop-pending" }
    when = "event.outcome == 'completed'"
    to   = { overflow = "idle" }
  }

  # Same, for a failed turn of the stopped run: the stop stays armed and the
  # overflow chain is kept ("Other failures drop the request but preserve
  # the overflow chain"; the stop is not a request that can be dropped).
  rule "turn_end_stop_pending_failure_cannot_reset_again" {
    on   = "turn_end"
    from = { request = "stop-pending" }
  }

  # An overflow with user input queued behind it. Read together: "Manual
  # overflow clears and stops without retry", "Overflow-like errors preserve
  # a manual close-out, including across queued work", "real queued user
  # input is answered before stopping", and, for a request that is not a
  # manual close-out, "automatic provider-overflow recovery remains
  # separately bounded". Left for settlement, the overflowing window stays:
  # Pi sends the overflowed request again unchanged (it overflows again),
  # then the queued input into the same window (it overflows too), and the
  # reset at settlement lands behind it, unanswered. So with input queued
  # the window is cleared at the overflow's own turn_end, before Pi sends
  # anything more: Pi then finds the overflowed reply older than the new
  # boundary and does not retry it, and delivers the queued input in the
  # fresh window, where it fits.
  #   manual close-out: the reset is the close-out ("clears"); no
  #     continuation is asked for, and the stop is kept (stop-pending) until
  #     the queued input is answered ("answered before stopping"). Pi may
  #     first answer the boundary's continuation, as it does after a manual
  #     hard-reserve reset with input queued ("Pending messages ... bypass
  #     cancellation").
  #   automatic (a budget close-out, or no close-out): this is the chain's
  #     one bounded recovery (overflow spent); it continues in the fresh
  #     window, as the recovery at settlement would. A chain whose recovery
  #     is already spent is not reset again.
  # "other requests arm automatic overflow recovery only when there is no
  # queued work" is read as governing the recovery at settlement, which
  # queued work would reach too late; the recovery here is the same one,
  # earlier, still once per chain and only when enabled with automatic
  # resets on.
  rule "turn_end_manual_overflow_with_queued_input_clears_before_it" {
    kind = reset
    on   = "turn_end"
    from = { request = "close-out", request_source = "manual" }
    when = "event.outcome == 'error' && event.error == 'overflow' && event.queued && event.enabled"
    to   = { request = "stop-pending", request_source = "none", overflow = "idle" }
    set  = { request_window = "event.window_id" }
    effect "commit_reset" {
      continue = false
    }
  }

  rule "turn_end_overflow_with_queued_input_recovers_before_it" {
    kind = reset
    on   = "turn_end"
    from = { request = ["none", "close-out", "tool-requested"], overflow = ["idle", "pending"] }
    when = "event.outcome == 'error' && event.error == 'overflow' && event.queued && event.enabled && event.auto_reset"
    to   = { request = "none", request_source = "none", overflow = "spent" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = true
    }
  }

  # "Overflow-like errors preserve a manual close-out, including across
  # queued work"; the overflow is then pending for settlement.
  rule "turn_end_overflow_preserves_manual_close_out" {
    on   = "turn_end"
    from = { request = "close-out", request_source = "manual", overflow = ["idle", "pending"] }
    when = "event.outcome == 'error' && event.error == 'overflow'"
    to   = { overflow = "pending" }
  }

  # Same, in a failure chain whose recovery was already spent.
  rule "turn_end_overflow_preserves_manual_close_out_in_spent_chain" {
    on   = "turn_end"
    from = { request = "close-out", request_source = "manual", overflow = ["spent", "pending-spent"] }
    when = "event.outcome == 'error' && event.error == 'overflow'"
    to   = { overflow = "pending-spent" }
  }

  # "other requests arm automatic overflow recovery only when there is no
  # queued work, the extension is enabled, and automatic reset is enabled."
  rule "turn_end_overflow_arms_recovery" {
    on   = "turn_end"
    from = { overflow = ["idle", "pending"] }
    when = "event.outcome == 'error' && event.error == 'overflow' && !event.queued && event.enabled && event.auto_reset"
    to   = { request = "none", request_source = "none", overflow = "pending" }
    set  = { request_window = "''" }
  }

  # "Recovery was already spent in this failure chain."
  rule "turn_end_overflow_after_spent_recovery_is_not_rearmed" {
    on   = "turn_end"
    from = { overflow = ["spent", "pending-spent"] }
    when = "event.outcome == 'error' && event.error == 'overflow' && !event.queued && event.enabled && event.auto_reset"
    to   = { request = "none", request_source = "none", overflow = "pending-spent" }
    set  = { request_window = "''" }
  }

  # "Other failures drop the request but preserve the overflow chain." /
  # "An ordinary close-out error is dropped without reset." The seed's rule
  # holds for the close-out the user asked for too, even though Pi's retry
  # may then complete the turn; what the seed does not say is that the user
  # is left believing the wipe is still coming. They are told, once (the
  # request is gone, so a second failure finds nothing to drop), that it was
  # dropped and how to ask again.
  rule "turn_end_failure_drops_manual_close_out_and_says_so" {
    on   = "turn_end"
    from = { request = "close-out", request_source = "manual" }
    when = "event.outcome == 'error'"
    to   = { request = "none", request_source = "none" }
    set  = { request_window = "''" }
    effect "notify" {
      level = "warning"
      text  = "message.manual_close_out_dropped"
    }
  }

  # "Other failures drop the request but preserve the overflow chain."
  rule "turn_end_failure_drops_request_keeps_overflow_chain" {
    on   = "turn_end"
    when = "event.outcome == 'error'"
    to   = { request = "none", request_source = "none" }
    set  = { request_window = "''" }
  }

  # "A successful, enabled turn commits for a tool request" — "At turn_end,
  # after the complete tool batch and any accepted budget drafts, append the
  # reset boundary and ask Pi to continue."
  rule "turn_end_commits_tool_request" {
    kind = reset
    on   = "turn_end"
    from = { request = "tool-requested" }
    when = "event.outcome == 'completed' && event.enabled && state.request_window == event.window_id"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = true
    }
  }

  # "Manual hard-reserve commits request no continuation and retain
  # stop-pending across the window change." stop-pending keeps the old window.
  rule "turn_end_manual_hard_reserve_commits_without_continuation" {
    kind = hard_reserve
    on   = "turn_end"
    from = { request = "close-out", request_source = "manual" }
    when = "event.outcome == 'completed' && event.enabled && hard_reserve"
    to   = { request = "stop-pending", request_source = "none", overflow = "idle" }
    set  = { request_window = "event.window_id" }
    effect "commit_reset" {
      continue = false
    }
  }

  # "A successful, enabled turn commits for a ... hard-reserve condition."
  # "Hard reserve: Independent safety path: if automatic resets are enabled
  # and completed-turn usage reaches Pi's reserve, commit a boundary at
  # turn_end."
  rule "turn_end_hard_reserve_commits" {
    kind = hard_reserve
    on   = "turn_end"
    from = { request = ["none", "close-out", "tool-requested"] }
    when = "event.outcome == 'completed' && event.enabled && hard_reserve"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = true
    }
  }

  # A tool request that cannot commit (another window, or switched off) is
  # dropped.
  rule "turn_end_drops_tool_request_that_cannot_commit" {
    on   = "turn_end"
    from = { request = "tool-requested" }
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }

  # "a close-out alone remains armed." / "a note write or ordinary tool turn
  # during a budget close-out must not consume it."
  rule "turn_end_close_out_stays_armed" {
    on   = "turn_end"
    from = { request = "close-out" }
    to   = { overflow = "idle" }
  }

  # "A successful, enabled turn commits ..." — and any completed turn ends
  # the failure chain, as the seed's reducer does: the overflow phase returns
  # to idle, so a later settlement never recovers from a failure that a
  # queued turn has already got past. (Every completed-turn rule above sets
  # overflow = idle for the same reason; aborts and errors are taken first.)
  rule "turn_end_success_ends_overflow_chain" {
    on   = "turn_end"
    from = { overflow = ["pending", "pending-spent", "spent"] }
    to   = { overflow = "idle" }
  }

  # ---- agent_before_settle

  # "`agent_before_settle` clears state on actual abort."
  rule "settle_abort_clears_everything" {
    on   = "before_settle"
    when = "event.outcome == 'aborted'"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }

  # "real queued user input is answered before stopping" / "the stop intent
  # remains armed until that work settles."
  rule "settle_stop_pending_waits_for_queued_work" {
    on   = "before_settle"
    from = { request = "stop-pending" }
    when = "event.queued"
  }

  # "settlement stops without a second wipe (or retries construction if the
  # old window is still active)."
  rule "settle_stop_pending_retries_construction_in_old_window" {
    kind = reset
    on   = "before_settle"
    from = { request = "stop-pending" }
    when = "event.enabled && state.request_window == event.window_id"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = false
      stop     = true
    }
  }

  # "A committed `stop-pending` reset needs only a stop, never a second wipe."
  rule "settle_stop_pending_needs_only_a_stop" {
    on   = "before_settle"
    from = { request = "stop-pending" }
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "stop" {}
  }

  # "Pending manual overflow commits a reset without continuation when enabled
  # and unqueued; it does not require automatic reset enablement."
  # "Manual overflow clears and stops without retry, even with automatic reset
  # disabled."
  rule "settle_manual_overflow_commits_without_continuation" {
    kind = reset
    on   = "before_settle"
    from = { request = "close-out", request_source = "manual", overflow = ["pending", "pending-spent"] }
    when = "event.enabled && !event.queued"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = false
      stop     = true
    }
  }

  # "Other pending overflow recovery gets its one bounded attempt when enabled
  # and unqueued", read with turn_end's "arm automatic overflow recovery only
  # when ... the extension is enabled, and automatic reset is enabled": with
  # the policy or automatic resets switched off by settlement, the chain ends
  # without a reset. (With work queued nothing fires: the queued turn runs
  # first, and a success there ends the chain.)
  rule "settle_overflow_chain_ends_without_reset_when_off" {
    on   = "before_settle"
    from = { overflow = "pending" }
    when = "!event.queued && !(event.enabled && event.auto_reset)"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }

  # "Other pending overflow recovery gets its one bounded attempt when enabled
  # and unqueued." The chain is then spent until it settles.
  rule "settle_overflow_recovery_gets_one_attempt" {
    kind = reset
    on   = "before_settle"
    from = { overflow = "pending" }
    when = "event.enabled && event.auto_reset && !event.queued"
    to   = { request = "none", request_source = "none", overflow = "spent" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = true
    }
  }

  # "Recovery was already spent in this failure chain": a pending-spent chain
  # settles as spent, with no second reset.
  rule "settle_spent_overflow_chain_gets_no_second_reset" {
    on   = "before_settle"
    from = { overflow = "pending-spent" }
    when = "!event.queued"
    to   = { request = "none", request_source = "none", overflow = "spent" }
    set  = { request_window = "''" }
  }

  # "Otherwise only a manual close-out commits, if the outcome is successful,
  # the request belongs to the current window, the extension is enabled, and
  # no queued work remains." "the committed reset stops the run instead of
  # continuing in the fresh window."
  rule "settle_commits_manual_close_out" {
    kind = reset
    on   = "before_settle"
    from = { request = "close-out", request_source = "manual" }
    when = "event.outcome == 'completed' && state.request_window == event.window_id && event.enabled && !event.queued"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "commit_reset" {
      continue = false
      stop     = true
    }
  }

  # "A successful normal stop commits at agent_before_settle after queued
  # messages drain": with work still queued the close-out stays armed.
  rule "settle_manual_close_out_waits_for_queued_work" {
    on   = "before_settle"
    from = { request = "close-out", request_source = "manual" }
    when = "event.queued"
  }

  # "none commits an ordinary close-out": a failed outcome, another window or
  # a switched-off policy drops the manual close-out without a reset.
  rule "settle_drops_manual_close_out_that_cannot_commit" {
    on   = "before_settle"
    from = { request = "close-out", request_source = "manual" }
    to   = { request = "none", request_source = "none" }
    set  = { request_window = "''" }
  }

  # "An automatic close-out alone is cleared without a reset." / "A budget
  # close-out without an explicit wipe is discarded at settlement without
  # resetting."
  rule "settle_clears_automatic_close_out" {
    on   = "before_settle"
    from = { request = "close-out", request_source = "automatic" }
    to   = { request = "none", request_source = "none" }
    set  = { request_window = "''" }
  }

  # ---- clearing events

  # "`agent_settled` ... clear[s] transient request state." The overflow
  # chain settles with the run.
  rule "settled_clears_transient_state" {
    on  = "settled"
    to  = { request = "none", request_source = "none", overflow = "idle" }
    set = { request_window = "''" }
  }

  # "session start/tree navigation/shutdown ... clear transient request
  # state." "Startup/tree repair is narrow: it may complete a repairable
  # marker tail".
  rule "session_start_or_tree_clears_and_repairs_tail" {
    on   = ["session_start", "session_tree"]
    when = "event.enabled"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
    effect "repair" {}
  }

  rule "session_change_clears_transient_state" {
    on  = ["session_start", "session_tree", "session_shutdown"]
    to  = { request = "none", request_source = "none", overflow = "idle" }
    set = { request_window = "''" }
  }

  # "`/pi-context off` ... clear[s] transient request state."
  rule "toggle_off_clears_transient_state" {
    on   = "toggle"
    when = "!event.on"
    to   = { request = "none", request_source = "none", overflow = "idle" }
    set  = { request_window = "''" }
  }
}

# ---------------------------------------------------------------- /wipe-memory warning

group "manual_warning" {
  # "The hidden checkpoint warning always goes out: when idle it starts one
  # ordinary model turn; while streaming it steers the running turn so the
  # agent closes out promptly." Not for a deduplicated command, nor once the
  # reset is committed (stop-pending).
  rule "manual_checkpoint_warning_starts_turn_when_idle" {
    on   = "command"
    from = { request = ["none", "close-out", "tool-requested"] }
    when = "event.name == 'wipe-memory' && event.enabled && event.idle && !(state.request == 'close-out' && state.request_source == 'manual' && state.request_window == event.window_id)"
    effect "inject" {
      message = "manual_checkpoint_warning"
      deliver = "turn"
    }
  }

  rule "manual_checkpoint_warning_steers_running_turn" {
    on   = "command"
    from = { request = ["none", "close-out", "tool-requested"] }
    when = "event.name == 'wipe-memory' && event.enabled && !event.idle && !(state.request == 'close-out' && state.request_source == 'manual' && state.request_window == event.window_id)"
    effect "inject" {
      message = "manual_checkpoint_warning"
      deliver = "steer"
    }
  }
}

# ---------------------------------------------------------------- /compact while active

# "/compact while active: Cancel native compaction, which could otherwise
# summarize pre-reset history back into the active window. A manual attempt
# receives an actionable /wipe-memory notice."
#
# "Active" is read as "the policy is on", not "a close-out is armed": this
# policy's only recovery from a full window is its own reset (the hard
# reserve, the one bounded overflow recovery), and Pi's summariser between two
# close-outs — after a settlement cleared one, on a threshold or on a
# provider overflow — would write a summary of the old history into the
# window and retry, so an overflow would be recovered twice (once by Pi's
# summary, once by the policy at settlement). Every compaction, manual,
# threshold or overflow, is cancelled while the policy is on. Switched off,
# Pi compacts as it would without the policy, except on a branch that
# already holds a reset: a summary there would carry erased history back.
group "compaction" {
  # An aborted signal is cancelled whatever else holds, as Pi itself would.
  rule "compaction_aborted_signal_cancels" {
    on   = "before_compact"
    when = "event.signal_aborted"
    effect "cancel_compaction" {}
  }

  # "A manual attempt receives an actionable /wipe-memory notice."
  rule "manual_compact_cancelled_with_wipe_memory_notice" {
    on   = "before_compact"
    when = "event.enabled && event.reason == 'manual'"
    effect "cancel_compaction" {
      text = "message.compact_cancelled_notice"
    }
  }

  # "Cancel native compaction" of a threshold or overflow attempt.
  rule "automatic_compact_cancelled_while_active" {
    on   = "before_compact"
    when = "event.enabled"
    effect "cancel_compaction" {}
  }

  # Switched off: a summary of a branch that already holds a reset marker
  # would "summarize pre-reset history back into the active window".
  rule "manual_compact_cancelled_after_reset_while_off" {
    on   = "before_compact"
    when = "event.after_reset && event.reason == 'manual'"
    effect "cancel_compaction" {
      text = "message.compact_after_reset_notice"
    }
  }

  rule "automatic_compact_cancelled_after_reset_while_off" {
    on   = "before_compact"
    when = "event.after_reset"
    effect "cancel_compaction" {}
  }
}

# ---------------------------------------------------------------- tree navigation

group "tree" {
  # "/tree summary generation is suppressed with an empty summary when either
  # branch crosses a reset, because the raw summary generator bypasses the
  # provider projection." The host reports the crossing (host/session's
  # SuppressTreeSummary); the decision is the policy's.
  rule "tree_summary_suppressed_across_reset" {
    on   = "before_tree"
    when = "event.crosses_reset"
    effect "suppress_summary" {}
  }
}

# ============================================================ properties
# The seed's safety sentences, proved by `resetpolicy verify` over every
# state the policy can reach (and checked by `resetpolicy test --verify`).
# Each names the line of the seed (seeds/000, the reset lifecycle) it
# encodes. Every property of this policy is in this region; the rules above
# are not.

# The host contract's range of context windows (32k and 64k local models,
# 128k, the 200k default, 1M): the token thresholds sit at reserve plus a
# runway under the window, so a rule that goes wrong only in a small window
# (a runway lost, a threshold under the reserve) is explored, not only the
# 200k default a guard compares nothing else with.
verify {
  domain = {
    context_window = [32000, 64000, 128000, 200000, 1000000]
  }
}

# seed 000 line 15 "Abort or error | Never count as successful close-out";
# line 54 "A user abort, an assistant message with a synthetic stopReason
# aborted, and a generic provider error ... none commits an ordinary
# close-out".
# The one exception is an overflow with user input queued behind it (seed
# 000 line 15 "Manual overflow clears and stops without retry"; line 14
# "real queued user input is answered before stopping"): the window is
# cleared before the queued input is sent, and that is no close-out counted
# as successful.
property "an aborted or failed turn never commits a reset" {
  never = "commit_reset"
  on    = "turn_end"
  when  = "(event.outcome != 'completed' || event.synthetic_abort) && !(event.outcome == 'error' && event.error == 'overflow' && event.queued)"
}

# seed 000 line 15 "Manual overflow clears and stops without retry",
# "automatic provider-overflow recovery remains separately bounded"; line 14
# "real queued user input is answered before stopping"; line 48
# "Overflow-like errors preserve a manual close-out, including across queued
# work": an overflow with input queued behind it is cleared at once, so the
# overflowed request is not sent again unchanged and the queued input is
# answered in a window it fits. Not in a stopped run, nor in a chain whose
# one recovery is spent (unless the user asked for the close-out).
property "an overflow with queued input is cleared before the input is sent" {
  always_emits = "commit_reset"
  on           = "turn_end"
  when         = "event.outcome == 'error' && event.error == 'overflow' && event.queued && event.enabled && !event.synthetic_abort && state.request != 'stop-pending' && ((state.request == 'close-out' && state.request_source == 'manual') || (event.auto_reset && (state.overflow == 'idle' || state.overflow == 'pending')))"
}

# seed 000 line 15 "automatic provider-overflow recovery remains separately
# bounded": the recovery done at once for queued input is the chain's one;
# a chain whose recovery is spent is not reset again at a failed turn
# (unless the user asked for the close-out).
property "a spent overflow chain is not recovered again at a failed turn" {
  never = "commit_reset"
  on    = "turn_end"
  when  = "event.outcome == 'error' && (state.overflow == 'spent' || state.overflow == 'pending-spent') && !(state.request == 'close-out' && state.request_source == 'manual')"
}

# The manual one of them stops: no continuation.
property "a manual overflow with queued input never continues" {
  never = "commit_reset"
  with  = { continue = true }
  on    = "turn_end"
  when  = "state.request == 'close-out' && state.request_source == 'manual'"
}

# seed 000 line 49 "agent_before_settle clears state on actual abort"; line
# 15 "Abort clears lifecycle state".
property "an aborted run never commits a reset when it settles" {
  never = "commit_reset"
  on    = "before_settle"
  when  = "event.outcome == 'aborted'"
}

# seed 000 line 48 "turn_end first clears everything on abort"; line 54 "A
# user abort, an assistant message with a synthetic stopReason "aborted",
# and a generic provider error ... none commits an ordinary close-out";
# line 49 "only a manual close-out commits, if the outcome is successful,
# the request belongs to the current window, the extension is enabled, and
# no queued work remains"; line 50 "/pi-context off, and abort clear
# transient request state".
# Stated over the events, not over the request slots: an aborted turn, a
# settlement with nothing queued and /pi-context off each end whatever was
# pending, so a later settlement commits only what was asked since — a new
# /wipe-memory, or an overflow that arms its recovery. The scope opens at
# each of them; a settlement is itself one, so scope.openings >= 2 is a
# settlement that another of them came before. A composed policy that
# disables one of the clearing rules leaves a close-out armed past it, and
# it commits at the next settlement.
property "nothing pending survives an abort, a settlement or the switch" {
  never = "commit_reset"
  on    = "before_settle"
  when  = "scope.openings >= 2"
  after = [
    { event = "turn_end", when = "event.outcome == 'aborted'" },
    { event = "before_settle", when = "!event.queued || event.outcome == 'aborted'" },
    { event = "toggle", when = "!event.on" },
  ]
  until = [
    { event = "command", when = "event.name == 'wipe-memory' && event.enabled" },
    { event = "turn_end", when = "event.outcome == 'error' && event.error == 'overflow'" },
    { event = "settled" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
  ]
}

# seed 000 line 18-23: a new boundary is one retain-none checkpoint; the
# host opens a new window after each.
property "at most one reset per window" {
  at_most = 1
  of      = "commit_reset"
  per     = "window"
}

# seed 000 line 12 "/wipe-memory ... the committed reset stops the run
# instead of continuing in the fresh window"; line 48 "Manual hard-reserve
# commits request no continuation".
property "a manual stop never continues" {
  never = "commit_reset"
  with  = { continue = true }
  when  = "state.request == 'stop-pending'"
}

# seed 000 line 12, 49: a manual close-out committed at settlement stops
# the run: no continuation.
property "a manual close-out committed at settlement never continues" {
  never = "commit_reset"
  with  = { continue = true }
  on    = "before_settle"
  when  = "state.request_source == 'manual'"
}

# seed 000 line 37 "stop-pending ... settlement stops without a second wipe";
# line 48 "Further turns cannot reset that stopped run again".
property "stop-pending never wipes twice" {
  never = "commit_reset"
  when  = "state.request == 'stop-pending' && event.window_id != state.request_window"
}

# seed 000 line 15 "automatic provider-overflow recovery remains separately
# bounded"; line 49 "Other pending overflow recovery gets its one bounded
# attempt". A chain ends with a turn that does not overflow, a user abort
# or command, when the run settles, or when the session changes.
property "overflow recovery at most once per chain" {
  at_most = 1
  of      = "commit_reset"
  with    = { continue = true }
  on      = "before_settle"
  per     = "cycle"
  cycle_ends_on = {
    turn_end         = "event.error != 'overflow'"
    before_settle    = "event.outcome == 'aborted'"
    command          = "true"
    settled          = "true"
    session_start    = "true"
    session_tree     = "true"
    session_shutdown = "true"
    toggle           = "!event.on"
  }
}

# seed 000 line 16 "/compact while active | Cancel native compaction, which
# could otherwise summarize pre-reset history back into the active window".
property "while on, every native compaction is cancelled" {
  always_emits = "cancel_compaction"
  on           = "before_compact"
  when         = "event.enabled"
}

# seed 000 line 11 "wipe_memory tool ... At turn_end, after the complete
# tool batch ..., append the reset boundary and ask Pi to continue".
property "a tool request commits at its completed turn and continues" {
  always_emits = "commit_reset"
  with         = { continue = true }
  on           = "turn_end"
  when         = "state.request == 'tool-requested' && state.request_window == event.window_id && event.outcome == 'completed' && !event.synthetic_abort && event.enabled"
}

# seed 000 line 14 "Hard reserve | Independent safety path: if automatic
# resets are enabled and completed-turn usage reaches Pi's reserve, commit a
# boundary at turn_end" (the reserve plus the policy's margin); a stopped
# run (stop-pending) is not reset again (line 48).
property "the hard reserve commits at a completed turn" {
  always_emits = "commit_reset"
  on           = "turn_end"
  when         = "event.outcome == 'completed' && !event.synthetic_abort && event.enabled && event.auto_reset && event.context_window - event.tokens <= event.reserve + param.reserve_margin && state.request != 'stop-pending'"
}

# seed 000 line 13 "Budget warning | ... An explicit wipe_memory commits the
# boundary; a successful normal stop alone never resets or requests
# continuation"; line 27 "A budget close-out without an explicit wipe is
# discarded at settlement without resetting".
property "a budget close-out alone never resets at settlement" {
  never = "commit_reset"
  on    = "before_settle"
  when  = "state.request == 'close-out' && state.request_source == 'automatic' && state.overflow == 'idle'"
}

# seed 000 line 12 "A successful normal stop commits at agent_before_settle
# after queued messages drain"; line 27 "agent_before_settle commits only
# manual close-outs after Pi has drained queued work"; line 49 "when
# enabled and unqueued": queued work is never committed over.
property "nothing commits at settlement over queued work" {
  never = "commit_reset"
  on    = "before_settle"
  when  = "event.queued"
}

# seed 000 line 14 "empty automatic follow-up is cancelled before provider
# work, while real queued user input is answered before stopping"; line 52
# "Pending messages or a real user message after the reset marker bypass
# cancellation so queued work is not swallowed".
property "a stop never swallows queued work or a user message" {
  never = "stop"
  on    = "request"
  when  = "event.queued || event.user_input"
}

# seed 000 line 14 "empty automatic follow-up is cancelled before provider
# work" after a manual hard-reserve reset (stop-pending, the window moved).
property "the empty follow-up after a manual safety reset is cancelled" {
  always_emits = "stop"
  on           = "request"
  when         = "state.request == 'stop-pending' && event.window_id != state.request_window && !event.queued && !event.user_input"
}

# seed 000 line 47 "inside a manual close-out it is only an acknowledgement,
# so a manual wipe is never converted into a turn-end commit that Pi's
# tool-batch continuation would overrun".
property "a manual close-out never becomes a continuing turn-end commit" {
  never = "commit_reset"
  with  = { continue = true }
  on    = "turn_end"
  when  = "state.request == 'close-out' && state.request_source == 'manual' && event.window_id == state.request_window"
}

# seed 000 line 58 "After a budget warning is durable, the extension does not
# repeat it in that window"; "the final close-out warning is staged ... only
# when automatic compaction is enabled".
# Stated over what the policy does, not over its warning_window latch: the
# warning's hidden entry is durable once the turn that carried it completes
# (seed 000: "After a budget warning is durable, the extension does not
# repeat it in that window"), and verify keeps that history itself.
property "the budget warning is not repeated once durable in a window" {
  never = "inject"
  with  = { message = "checkpoint_warning", deliver = "request" }
  after = {
    effect = "inject"
    with   = { message = "checkpoint_warning" }
    then = {
      event  = "turn_end"
      when   = "event.outcome == 'completed' && !event.synthetic_abort"
      unless = ["request", "settled", "session_start", "session_tree", "session_shutdown", "toggle"]
    }
  }
  within = "window"
}
property "the budget warning only while automatic compaction is on" {
  never = "inject"
  with  = { message = "checkpoint_warning", deliver = "request" }
  on    = "request"
  when  = "!event.auto_compaction"
}

# seed 000 line 58 "The final close-out warning is staged/attached at
# reserve + WARNING_RUNWAY_TOKENS, only when automatic compaction is
# enabled": a request at that remaining budget carries the warning, in a
# window of any size, until the warning is durable there (the property
# above states the durability from what the policy did; this one the
# threshold, as the warning_runway param: its 12288 is the param's default).
property "the budget warning goes out at the reserve plus the warning runway" {
  always_emits = "inject"
  with         = { message = "checkpoint_warning", deliver = "request" }
  on           = "request"
  when         = "event.enabled && event.auto_compaction && event.context_window - event.tokens <= event.reserve + param.warning_runway && state.warning_window != event.window_id"
}

# seed 000 line 58 "The early reminder is staged once per window": once its
# draft is durable, not again in that window; a durable warning covers the
# reminder of its window too. Stated, like the warning's, over the injects
# and the turns that made them durable, not over reminder_window.
property "the reminder is not repeated once durable in a window" {
  never = "inject"
  with  = { message = "budget_reminder" }
  after = [
    {
      effect = "inject"
      with   = { message = "budget_reminder" }
      then = {
        event  = "turn_end"
        when   = "event.outcome == 'completed' && !event.synthetic_abort"
        unless = ["request", "settled", "session_start", "session_tree", "session_shutdown", "toggle"]
      }
    },
    {
      effect = "inject"
      with   = { message = "checkpoint_warning" }
      then = {
        event  = "turn_end"
        when   = "event.outcome == 'completed' && !event.synthetic_abort"
        unless = ["request", "settled", "session_start", "session_tree", "session_shutdown", "toggle"]
      }
    },
  ]
  within = "window"
}

# seed 000 line 60 "UI reminder notices are emitted only after the matching
# hidden entry is durable, so failed requests do not report an uncommitted
# warning".
# The one notice a failed turn gives is the one that says a /wipe-memory the
# failure dropped is gone (seed 000 line 15 "An ordinary close-out error is
# dropped without reset"; the user is told).
property "a failed turn never reports a budget notice" {
  never = "notify"
  on    = "turn_end"
  when  = "(event.outcome != 'completed' || event.synthetic_abort) && !(state.request == 'close-out' && state.request_source == 'manual' && event.outcome == 'error')"
}

# seed 000 line 50 "/pi-context off ... clear transient request state":
# switched off, the policy never resets.
property "switched off, nothing resets" {
  never = "commit_reset"
  when  = "!event.enabled"
}

# seed 000 line 68 "/tree summary generation is suppressed with an empty
# summary when either branch crosses a reset".
property "a tree summary across a reset is suppressed" {
  always_emits = "suppress_summary"
  on           = "before_tree"
  when         = "event.crosses_reset"
}

# seed 000 line 49 "Pending manual overflow commits a reset without
# continuation when enabled and unqueued; it does not require automatic
# reset enablement."
property "a manual overflow commits at settlement without continuation" {
  always_emits = "commit_reset"
  with         = { continue = false }
  on           = "before_settle"
  when         = "state.request == 'close-out' && state.request_source == 'manual' && (state.overflow == 'pending' || state.overflow == 'pending-spent') && event.enabled && !event.queued && event.outcome != 'aborted'"
}

# seed 000 line 49 "Other pending overflow recovery gets its one bounded
# attempt when enabled and unqueued" (automatic resets on: line 48 arms it
# only then).
property "a pending overflow recovery gets its attempt at settlement" {
  always_emits = "commit_reset"
  with         = { continue = true }
  on           = "before_settle"
  when         = "state.overflow == 'pending' && state.request != 'stop-pending' && !(state.request == 'close-out' && state.request_source == 'manual') && event.enabled && event.auto_reset && !event.queued && event.outcome != 'aborted'"
}

# seed 000 line 60 "UI reminder notices are emitted only after the matching
# hidden entry is durable, so failed requests do not report an uncommitted
# warning". Stated over what the policy did: between the inject of a budget
# entry and the end of the turn that carries it (or the transition that
# discards it, line 60 "discarded on abort, failed turn, transition"), the
# entry is not durable yet, so no notice goes out.
property "a budget notice never comes before its entry is durable" {
  never = "notify"
  after = [
    { effect = "inject", with = { message = "checkpoint_warning" } },
    { effect = "inject", with = { message = "budget_reminder" } },
  ]
  until = [
    { event = "turn_end" },
    { event = "settled" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle" },
  ]
}

# seed 000 line 58 "Budget and idle manual requests use the same hidden
# checkpoint text but distinct message types, so an aborted manual request
# cannot suppress a later budget warning". The budget warning's type goes
# out only with a request (line 13 "put the same hidden warning in the
# request"); /wipe-memory sends its own.
property "/wipe-memory sends its own warning, never the budget's" {
  never = "inject"
  with  = { message = "checkpoint_warning" }
  on    = "command"
}

# The events that end a /wipe-memory close-out in its window without a
# commit, as the seed's reducer has them (line 48 "turn_end first clears
# everything on abort. Overflow-like errors preserve a manual close-out ...
# Other failures drop the request"; line 49 "agent_before_settle clears
# state on actual abort ... only a manual close-out commits, if ... the
# extension is enabled, and no queued work remains"; line 50 "agent_settled,
# session start/tree navigation/shutdown, /pi-context off ... clear
# transient request state"). A commit ends it too; a reset the host could
# not carry out does not (the close-out is then retried, line 37).
# The two properties below open on the manual warning itself: it goes out
# exactly when /wipe-memory arms a close-out (line 12 "The hidden checkpoint
# warning always goes out"), so neither reads the policy's request slots.

# seed 000 line 12 "A successful normal stop commits at agent_before_settle
# after queued messages drain, and the committed reset stops the run instead
# of continuing in the fresh window"; line 46 "a manual request converts a
# pending tool request into a settle-committed stop".
# Stated over what the policy did: from the manual warning it sent until
# the close-out commits, fails or is dropped. The settlement that must
# commit is inside the scope and ends it, whatever it did (an until marked
# inclusive): a reset the host could not carry out is no marker, and
# without it the scope stayed open into orders verify explores and Pi never
# produces (a second settlement with no settled between them), which the
# property used to leave out by reading the request slots.
property "a /wipe-memory close-out commits and stops the run when it settles" {
  always_emits = "commit_reset"
  with         = { stop = true }
  on           = "before_settle"
  when         = "event.outcome == 'completed' && event.enabled && !event.queued"
  after        = { effect = "inject", with = { message = "manual_checkpoint_warning" } }
  until = [
    { effect = "commit_reset" },
    { event = "turn_end", when = "event.outcome == 'aborted' || event.synthetic_abort || (event.outcome == 'error' && event.error != 'overflow')" },
    { event = "before_settle", when = "event.outcome == 'aborted' || !event.queued", inclusive = true },
    { event = "settled" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
  within = "window"
}

# seed 000 line 46 "close_out(windowId, source) arms a close-out for that
# window. Repeating an already-pending request deduplicates"; line 11
# "Repeated requests for that window deduplicate": the hidden warning of a
# close-out goes out once. The scope ends where the close-out could (a
# failed turn of any kind, any settlement): after those a new /wipe-memory
# arms a new close-out and warns again.
property "a repeated /wipe-memory does not send the warning again" {
  never = "inject"
  with  = { message = "manual_checkpoint_warning" }
  after = { effect = "inject", with = { message = "manual_checkpoint_warning" } }
  until = [
    { effect = "commit_reset" },
    { event = "turn_end", when = "event.outcome != 'completed' || event.synthetic_abort" },
    { event = "before_settle" },
    { event = "settled" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
  within = "window"
}

# seed 000 line 12 "/wipe-memory | Acknowledge immediately"; line 37 "New
# wipe requests only acknowledge it"; line 46 "Repeating an already-pending
# request deduplicates": every /wipe-memory is answered, whatever it does.
property "every /wipe-memory is answered" {
  always_emits = "reply"
  on           = "command"
  when         = "event.name == 'wipe-memory'"
}
