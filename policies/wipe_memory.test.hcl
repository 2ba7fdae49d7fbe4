# Tests of the built-in wipe_memory policy (seed 000).
#
# Thresholds with the contract's defaults (context_window 200000, reserve
# 16384) and the policy's default params:
#   reminder due   remaining <= 16384 + 24576 = 40960  ->  tokens >= 159040
#   warning due    remaining <= 16384 + 12288 = 28672  ->  tokens >= 171328
#   hard reserve   remaining <= 16384 + 0     = 16384  ->  tokens >= 183616

policy = "wipe_memory"

# ============================================================ "done when" stories

run "story: 'A direct wipe_memory call commits after its complete turn batch and continues in the fresh window'" {
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_marks_window"]
      effects = [{ effect = "reply" }]
    }
  }
  event "turn_end" {
    outcome      = "completed"
    tool_results = 1
    expect {
      rules   = ["turn_end_commits_tool_request"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  event "request" {
    window_id = "w2"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "story: '/wipe-memory ... commits at agent_before_settle ... the committed reset stops the run'" {
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      rules = ["wipe_command_arms_manual_close_out", "manual_checkpoint_warning_starts_turn_when_idle"]
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "turn" },
      ]
    }
  }
  event "request" {
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tool_results = 2
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
  event "request" {}
  event "turn_end" {
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      rules   = ["settle_commits_manual_close_out"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
  event "settled" {
    window_id = "w2"
    expect {
      rules   = ["settled_clears_transient_state"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", overflow = "idle" }
  }
}

run "story: 'Abort clears lifecycle state' and never counts as a successful close-out" {
  event "command" {
    name = "wipe-memory"
    expect {
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "steer" },
      ]
    }
  }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_inside_manual_close_out_only_acknowledges"]
      effects = [{ effect = "reply" }]
    }
  }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules   = ["turn_end_user_abort_clears_everything"]
      effects = []
    }
  }
  event "before_settle" {
    outcome = "aborted"
    expect {
      rules   = ["settle_abort_clears_everything"]
      effects = []
    }
  }
  event "settled" {
    aborted = true
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
  assert {
    condition     = "len(decisions) == 5 && all(decisions, {len(.effects) == 0 || .event == 'command' || .event == 'tool'})"
    error_message = "an aborted close-out must not reset, stop or continue"
  }
}

# ============================================================ close_out(windowId, source)

run "close_out: 'arms a close-out for that window'" {
  event "command" {
    name      = "wipe-memory"
    window_id = "w7"
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w7" }
  }
}

run "close_out: 'Repeating an already-pending request deduplicates' (manual)" {
  event "command" {
    name = "wipe-memory"
  }
  event "command" {
    name = "wipe-memory"
    expect {
      rules   = ["wipe_command_deduplicates_manual_close_out"]
      effects = [{ effect = "reply", text = "A close-out is already under way for this context window." }]
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1" }
  }
}

run "close_out: 'Repeating an already-pending request deduplicates' (automatic, every eligible request)" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1", warning_window = "w1", reminder_window = "w1" }
  event "request" {
    tokens = 175000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  }
}

run "close_out: 'a manual request can upgrade an automatic request for the same window'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "command" {
    name = "wipe-memory"
    expect {
      rules = ["wipe_command_upgrades_automatic_close_out", "manual_checkpoint_warning_steers_running_turn"]
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "steer" },
      ]
    }
  }
  event "before_settle" {
    expect {
      rules   = ["settle_commits_manual_close_out"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}

run "close_out: a manual request for another window replaces an automatic close-out left from an old window" {
  state = { request = "close-out", request_source = "automatic", request_window = "w0" }
  event "command" {
    name = "wipe-memory"
    expect {
      rules = ["wipe_command_arms_manual_close_out", "manual_checkpoint_warning_steers_running_turn"]
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1" }
  }
}

run "close_out: another command is not a close-out request" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "command" {
    name = "status"
    expect {
      rules   = []
      effects = []
    }
  }
  event "before_settle" {}
  event "command" {
    name = "status"
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "close_out: a manual close-out left from another window is re-armed for this one, with its warning" {
  state = { request = "close-out", request_source = "manual", request_window = "w0" }
  event "command" {
    name = "wipe-memory"
    expect {
      rules = ["wipe_command_arms_manual_close_out", "manual_checkpoint_warning_steers_running_turn"]
      effects = [
        { effect = "reply", text = "Closing out: the agent is asked to save its notes. When it stops, its context window is wiped and the run ends." },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "steer" },
      ]
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1" }
  }
}

run "close_out: a tool request left from another window is replaced, not converted" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w0" }
  event "command" {
    name = "wipe-memory"
    expect {
      rules = ["wipe_command_arms_manual_close_out", "manual_checkpoint_warning_steers_running_turn"]
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1" }
  }
}

run "close_out: 'a manual request converts a pending tool request into a settle-committed stop'" {
  event "tool" {
    name = "wipe_memory"
  }
  event "command" {
    name = "wipe-memory"
    expect {
      rules = ["wipe_command_converts_tool_request_to_settle_stop", "manual_checkpoint_warning_steers_running_turn"]
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "steer" },
      ]
    }
  }
  event "turn_end" {
    tool_results = 1
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
  event "before_settle" {
    expect {
      rules   = ["settle_commits_manual_close_out"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}

# ============================================================ tool_request(windowId)

run "tool_request: 'marks that window for a turn-end reset'" {
  event "tool" {
    name      = "wipe_memory"
    window_id = "w3"
    expect {
      effects = [{ effect = "reply", text = "Reset requested: this context window is wiped at the end of this turn and you continue in a fresh window. Make sure your notes are complete before the turn ends." }]
    }
  }
  expect {
    state = { request = "tool-requested", request_source = "tool", request_window = "w3" }
  }
}

run "tool_request: 'Matching duplicates deduplicate' and commit once" {
  event "tool" {
    name = "wipe_memory"
  }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_deduplicates_same_window"]
      effects = [{ effect = "reply", text = "A reset is already requested for this context window; it happens at the end of this turn." }]
    }
  }
  event "turn_end" {
    tool_results = 2
    expect {
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "tool_request: a request left from another window is replaced, not deduplicated" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w0" }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules = ["tool_request_marks_window"]
    }
  }
  expect {
    state = { request = "tool-requested", request_window = "w1" }
  }
}

run "tool_request: 'Inside a budget close-out the call upgrades to a turn-end commit'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_upgrades_budget_close_out"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { request = "tool-requested", request_source = "automatic", request_window = "w1" }
  }
}

run "tool_request: 'inside a manual close-out it is only an acknowledgement'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_inside_manual_close_out_only_acknowledges"]
      effects = [{ effect = "reply", text = "Noted. The user asked for this close-out: finish your notes and end your reply; the window is wiped when you stop." }]
    }
  }
  event "turn_end" {
    tool_results = 1
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1" }
  }
}

run "tool_request: the wipe_memory tool refuses while the policy is switched off" {
  event "tool" {
    name    = "wipe_memory"
    enabled = false
    expect {
      rules   = ["tool_refused_while_disabled"]
      effects = [{ effect = "reply", text = "wipe_memory is switched off in this session; nothing was reset." }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "tool_request: another tool's call is not a wipe request" {
  event "tool" {
    name = "read"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "tool_request: another tool or command never touches a stop-pending reset" {
  state = { request = "stop-pending", request_window = "w1" }
  event "tool" {
    name = "read"
    expect {
      rules   = []
      effects = []
    }
  }
  event "command" {
    name = "status"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "stop-pending", request_window = "w1" }
  }
}

run "tool_request: another tool's call inside a manual or budget close-out is neither an acknowledgement nor an upgrade" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "tool" {
    name = "write"
    expect {
      rules   = []
      effects = []
    }
  }
  event "before_settle" {
    outcome = "error"
  }
  event "request" {
    tokens = 172000
  }
  event "tool" {
    name = "edit"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  }
}

run "tool_request: a manual close-out left from another window does not swallow a new window's wipe_memory" {
  state = { request = "close-out", request_source = "manual", request_window = "w0" }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules   = ["tool_request_marks_window"]
      effects = [{ effect = "reply" }]
    }
  }
  event "turn_end" {
    expect {
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "tool_request: a budget close-out left from another window is replaced by a direct request" {
  state = { request = "close-out", request_source = "automatic", request_window = "w0" }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules = ["tool_request_marks_window"]
    }
  }
  expect {
    state = { request = "tool-requested", request_source = "tool", request_window = "w1" }
  }
}

# ============================================================ turn_end

run "turn_end: 'first clears everything on abort'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules   = ["turn_end_user_abort_clears_everything"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "turn_end: 'a synthetic stopReason: \"aborted\"' is not a user abort but never commits a tool request" {
  event "tool" {
    name = "wipe_memory"
  }
  event "turn_end" {
    outcome         = "completed"
    synthetic_abort = true
    tool_results    = 1
    expect {
      rules   = ["turn_end_synthetic_abort_clears_without_commit"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", overflow = "idle" }
  }
}

run "turn_end: 'a synthetic stopReason: \"aborted\"' never commits a manual close-out at settlement" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "spent" }
  event "turn_end" {
    outcome         = "aborted"
    synthetic_abort = true
    expect {
      rules   = ["turn_end_synthetic_abort_clears_without_commit"]
      effects = []
    }
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", overflow = "idle" }
  }
}

run "turn_end: 'Overflow-like errors preserve a manual close-out'; with no input queued it waits for settlement" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules   = ["turn_end_overflow_preserves_manual_close_out"]
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  }
}

run "turn_end: 'Manual overflow clears and stops without retry' ... 'real queued user input is answered before stopping': with input queued the window is cleared at once and the stop kept" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    queued     = true
    auto_reset = false
    expect {
      rules   = ["turn_end_manual_overflow_with_queued_input_clears_before_it"]
      effects = [{ effect = "commit_reset", continue = false }]
    }
  }
  # The fresh window's first request goes out (stop-pending, window w2):
  # input is queued behind it.
  event "request" {
    window_id = "w2"
    queued    = true
    expect {
      rules   = []
      effects = []
    }
  }
  # The queued input is answered, then the run stops without a second wipe.
  event "request" {
    window_id  = "w2"
    user_input = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    window_id = "w2"
    outcome   = "completed"
    expect {
      rules = ["turn_end_stop_pending_cannot_reset_again"]
    }
  }
  event "before_settle" {
    window_id = "w2"
    outcome   = "completed"
    expect {
      rules   = ["settle_stop_pending_needs_only_a_stop"]
      effects = [{ effect = "stop" }]
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "turn_end: 'Overflow-like errors preserve a manual close-out' in a chain whose recovery is spent" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "spent" }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    auto_reset = false
    expect {
      rules   = ["turn_end_overflow_preserves_manual_close_out_in_spent_chain"]
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "manual", overflow = "pending-spent" }
  }
}

run "turn_end: 'other requests arm automatic overflow recovery only when there is no queued work, the extension is enabled, and automatic reset is enabled'" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1" }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules   = ["turn_end_overflow_arms_recovery"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_window = "", overflow = "pending" }
  }
}

run "turn_end: 'automatic provider-overflow recovery remains separately bounded': a budget close-out that overflows with input queued recovers at once, before the input is sent" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    queued  = true
    expect {
      rules   = ["turn_end_overflow_with_queued_input_recovers_before_it"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  expect {
    state = { request = "none", request_window = "", overflow = "spent" }
  }
  # The chain's one recovery is spent: another overflow is not reset again.
  event "turn_end" {
    window_id = "w2"
    outcome   = "error"
    error     = "overflow"
    queued    = true
    expect {
      rules   = ["turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
}

run "turn_end: with input queued, an overflow is not recovered at once unless 'automatic reset is enabled'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    queued     = true
    auto_reset = false
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  expect {
    state = { request = "none", overflow = "idle" }
  }
}

run "turn_end: overflow recovery is not armed unless 'automatic reset is enabled'" {
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    auto_reset = false
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "turn_end: overflow recovery is not armed unless 'the extension is enabled'" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    enabled = false
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "turn_end: 'Recovery was already spent in this failure chain' (overflow: pending-spent)" {
  state = { overflow = "spent" }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules   = ["turn_end_overflow_after_spent_recovery_is_not_rearmed"]
      effects = []
    }
  }
  expect {
    state = { request = "none", overflow = "pending-spent" }
  }
}

run "turn_end: 'Other failures drop the request but preserve the overflow chain'" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1", overflow = "pending" }
  event "turn_end" {
    outcome      = "error"
    error        = "other"
    tool_results = 1
    expect {
      rules   = ["turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "pending" }
  }
}

run "turn_end: 'An ordinary close-out error is dropped without reset'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "spent" }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["turn_end_failure_drops_manual_close_out_and_says_so"]
      effects = [{ effect = "notify", level = "warning", text = "/wipe-memory did not happen: a turn of the close-out failed (a provider error), and a failed turn never completes a close-out, so nothing was wiped. Run /wipe-memory again to ask for it." }]
    }
  }
  event "before_settle" {
    outcome = "error"
    expect {
      effects = []
    }
  }
  expect {
    state = { request = "none", overflow = "spent" }
  }
}

run "turn_end: 'A successful, enabled turn commits for a tool request'; a switched-off turn drops it" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1" }
  event "turn_end" {
    enabled = false
    expect {
      rules   = ["turn_end_drops_tool_request_that_cannot_commit"]
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "turn_end: a tool request from another window never commits in this one" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w0" }
  event "turn_end" {
    expect {
      rules   = ["turn_end_drops_tool_request_that_cannot_commit"]
      effects = []
    }
  }
}

run "turn_end: 'A successful, enabled turn commits for a ... hard-reserve condition'" {
  event "turn_end" {
    tokens = 184000
    expect {
      rules   = ["turn_end_hard_reserve_commits"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "turn_end: no hard-reserve commit above the reserve" {
  event "turn_end" {
    tokens = 183000
    expect {
      rules   = []
      effects = []
    }
  }
}

run "turn_end: hard reserve only 'if automatic resets are enabled'" {
  event "turn_end" {
    tokens     = 190000
    auto_reset = false
    expect {
      rules   = []
      effects = []
    }
  }
}

run "turn_end: hard reserve needs a successful turn ('Abort or error: Never count as successful')" {
  event "turn_end" {
    tokens  = 190000
    outcome = "error"
    expect {
      effects = []
    }
  }
}

run "turn_end: hard reserve at reserve + reserve_margin" {
  params = { reserve_margin = 4096 }
  event "turn_end" {
    tokens = 180000
    expect {
      rules   = ["turn_end_hard_reserve_commits"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "turn_end: 'Hard reserve: Independent safety path' consumes a budget close-out" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "turn_end" {
    tokens = 185000
    expect {
      rules   = ["turn_end_hard_reserve_commits"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "turn_end: 'a close-out alone remains armed' ('a note write or ordinary tool turn ... must not consume it')" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "turn_end" {
    tool_results = 3
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  }
}

run "turn_end: 'Manual hard-reserve commits request no continuation and retain stop-pending across the window change'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "turn_end" {
    tokens = 190000
    expect {
      rules   = ["turn_end_manual_hard_reserve_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false }]
    }
  }
  event "request" {
    window_id = "w2"
    expect {
      rules   = ["stop_pending_cancels_empty_follow_up"]
      effects = [{ effect = "stop" }]
    }
  }
  expect {
    state = { request = "stop-pending", request_window = "w1" }
  }
  assert {
    condition     = "len(decisions[0].effects) == 1 && decisions[0].effects[0].continue == false && !(decisions[0].effects[0].stop ?? false)"
    error_message = "the manual hard-reserve commit must neither continue nor stop at turn_end"
  }
}

run "turn_end: 'Further turns cannot reset that stopped run again'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "turn_end" {
    window_id = "w2"
    tokens    = 195000
    expect {
      rules   = ["turn_end_stop_pending_cannot_reset_again"]
      effects = []
    }
  }
  event "turn_end" {
    window_id = "w2"
    outcome   = "error"
    error     = "overflow"
    expect {
      rules   = ["turn_end_stop_pending_failure_cannot_reset_again"]
      effects = []
    }
  }
  expect {
    state = { request = "stop-pending", request_window = "w1", overflow = "idle" }
  }
}

# ============================================================ agent_before_settle

run "before_settle: 'clears state on actual abort'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  event "before_settle" {
    outcome = "aborted"
    expect {
      rules   = ["settle_abort_clears_everything"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "before_settle: 'Pending manual overflow commits a reset without continuation ... it does not require automatic reset enablement'" {
  event "command" {
    name       = "wipe-memory"
    auto_reset = false
  }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    auto_reset = false
    expect {
      rules = ["turn_end_overflow_preserves_manual_close_out"]
    }
  }
  event "before_settle" {
    outcome    = "error"
    auto_reset = false
    expect {
      rules   = ["settle_manual_overflow_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
  expect {
    state = { request = "none", overflow = "idle" }
  }
}

run "before_settle: 'Manual overflow clears and stops without retry' once queued work has drained" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  event "before_settle" {
    outcome = "error"
    queued  = true
    expect {
      rules   = ["settle_manual_close_out_waits_for_queued_work"]
      effects = []
    }
  }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_manual_overflow_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}

run "before_settle: 'Pending manual overflow commits' even when the automatic recovery is spent" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending-spent" }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_manual_overflow_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}

run "before_settle: 'Other pending overflow recovery gets its one bounded attempt'" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
  }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_overflow_recovery_gets_one_attempt"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  event "turn_end" {
    window_id = "w2"
    outcome   = "error"
    error     = "overflow"
    expect {
      rules = ["turn_end_overflow_after_spent_recovery_is_not_rearmed"]
    }
  }
  event "before_settle" {
    window_id = "w2"
    outcome   = "error"
    expect {
      rules   = ["settle_spent_overflow_chain_gets_no_second_reset"]
      effects = []
    }
  }
  event "settled" {
    window_id = "w2"
    expect {
      rules = ["settled_clears_transient_state"]
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "before_settle: overflow recovery only 'when enabled and unqueued'" {
  state = { overflow = "pending" }
  event "before_settle" {
    outcome = "error"
    queued  = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "before_settle" {
    outcome = "error"
    enabled = false
    expect {
      rules   = ["settle_overflow_chain_ends_without_reset_when_off"]
      effects = []
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "before_settle: 'A committed stop-pending reset needs only a stop, never a second wipe'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "before_settle" {
    window_id = "w2"
    expect {
      rules   = ["settle_stop_pending_needs_only_a_stop"]
      effects = [{ effect = "stop" }]
    }
  }
  expect {
    state = { request = "none", request_window = "" }
  }
}

run "before_settle: stop-pending '(or retries construction if the old window is still active)'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "before_settle" {
    window_id = "w1"
    expect {
      rules   = ["settle_stop_pending_retries_construction_in_old_window"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "before_settle: stop-pending 'real queued user input is answered before stopping'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "before_settle" {
    window_id = "w2"
    queued    = true
    expect {
      rules   = ["settle_stop_pending_waits_for_queued_work"]
      effects = []
    }
  }
  expect {
    state = { request = "stop-pending", request_window = "w1" }
  }
}

run "before_settle: 'only a manual close-out commits, if the outcome is successful'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_drops_manual_close_out_that_cannot_commit"]
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "before_settle: only a manual close-out commits if 'the request belongs to the current window'" {
  state = { request = "close-out", request_source = "manual", request_window = "w0" }
  event "before_settle" {
    expect {
      rules   = ["settle_drops_manual_close_out_that_cannot_commit"]
      effects = []
    }
  }
}

run "before_settle: only a manual close-out commits if 'the extension is enabled'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "before_settle" {
    enabled = false
    expect {
      rules   = ["settle_drops_manual_close_out_that_cannot_commit"]
      effects = []
    }
  }
}

run "before_settle: only a manual close-out commits if 'no queued work remains'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "before_settle" {
    queued = true
    expect {
      rules   = ["settle_manual_close_out_waits_for_queued_work"]
      effects = []
    }
  }
  event "request" {}
  event "turn_end" {}
  event "before_settle" {
    expect {
      rules   = ["settle_commits_manual_close_out"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}

run "before_settle: 'An automatic close-out alone is cleared without a reset'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "before_settle" {
    expect {
      rules   = ["settle_clears_automatic_close_out"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "" }
  }
}

# ============================================================ clearing events

run "clear: 'agent_settled ... clear[s] transient request state'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "spent" }
  event "settled" {
    expect {
      rules   = ["settled_clears_transient_state"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "clear: 'session start ... clear[s] transient request state' and startup repair completes a repairable tail" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1", overflow = "pending" }
  event "session_start" {
    reason = "resume"
    expect {
      rules   = ["session_start_or_tree_clears_and_repairs_tail"]
      effects = [{ effect = "repair" }]
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

run "clear: 'tree navigation ... clear[s] transient request state' and tree repair runs" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "session_tree" {
    expect {
      rules   = ["session_start_or_tree_clears_and_repairs_tail"]
      effects = [{ effect = "repair" }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "clear: 'shutdown ... clear[s] transient request state'" {
  state = { request = "stop-pending", request_window = "w1", overflow = "pending-spent" }
  event "session_shutdown" {
    expect {
      rules   = ["session_change_clears_transient_state"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_window = "", overflow = "idle" }
  }
}

run "clear: a switched-off session start clears without repairing" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "session_start" {
    enabled = false
    expect {
      rules   = ["session_change_clears_transient_state"]
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "clear: '/pi-context off ... clear[s] transient request state'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1", overflow = "pending" }
  event "toggle" {
    on = true
    expect {
      rules = []
    }
  }
  event "toggle" {
    on = false
    expect {
      rules   = ["toggle_off_clears_transient_state"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", request_window = "", overflow = "idle" }
  }
}

# What a host sees of the clearing: each of these ends a /wipe-memory
# close-out, so the settlement after it commits nothing (the property
# "nothing pending survives an abort, a settlement or the switch").

run "clear: seed 000 line 54 'none commits an ordinary close-out': a /wipe-memory a synthetic abort ended does not commit when the run settles" {
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    outcome         = "aborted"
    synthetic_abort = true
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      effects = []
    }
  }
}

run "clear: seed 000 line 49 'only a manual close-out commits, if the outcome is successful': a close-out a failed settlement dropped does not commit at the next" {
  event "command" {
    name = "wipe-memory"
  }
  event "before_settle" {
    outcome = "error"
    expect {
      effects = []
    }
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      effects = []
    }
  }
}

run "clear: seed 000 line 50 '/pi-context off ... clear[s] transient request state': a /wipe-memory from before the switch went off does not commit once it is back on" {
  event "command" {
    name = "wipe-memory"
  }
  event "toggle" {
    on      = false
    enabled = false
  }
  event "toggle" {
    on = true
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      effects = []
    }
  }
}

# ============================================================ Lifecycle at a glance

run "table `wipe_memory` tool: 'At turn_end, after the complete tool batch ... append the reset boundary and ask Pi to continue'" {
  event "request" {}
  event "tool" {
    name = "wipe_memory"
  }
  event "turn_end" {
    tool_results = 4
    expect {
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  event "request" {
    window_id = "w2"
  }
  event "turn_end" {
    window_id = "w2"
    expect {
      rules   = []
      effects = []
    }
  }
}

run "table `/wipe-memory`: 'when idle it starts one ordinary model turn'" {
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      effects = [
        { effect = "reply", text = "Closing out: the agent is asked to save its notes. When it stops, its context window is wiped and the run ends." },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "turn" },
      ]
    }
  }
}

run "table `/wipe-memory`: 'while streaming it steers the running turn so the agent closes out promptly'" {
  event "command" {
    name = "wipe-memory"
    idle = false
    expect {
      rules = ["wipe_command_arms_manual_close_out", "manual_checkpoint_warning_steers_running_turn"]
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "steer" },
      ]
    }
  }
}

run "table `/wipe-memory`: 'The hidden checkpoint warning always goes out', even with automatic compaction and resets off" {
  event "command" {
    name            = "wipe-memory"
    auto_compaction = false
    auto_reset      = false
    idle            = true
    expect {
      effects_contain = [{ effect = "inject", message = "manual_checkpoint_warning", deliver = "turn" }]
    }
  }
}

run "table `/wipe-memory`: 'The agent may write notes/use tools over several turns; its own wipe_memory call only acknowledges'" {
  event "command" {
    name = "wipe-memory"
    idle = true
  }
  event "turn_end" {
    tool_results = 1
  }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules = ["tool_request_inside_manual_close_out_only_acknowledges"]
    }
  }
  event "turn_end" {
    tool_results = 1
    expect {
      effects = []
    }
  }
  event "before_settle" {
    expect {
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
  assert {
    condition     = "len(filter(decisions, {any(.effects, {.effect == 'commit_reset'})})) == 1"
    error_message = "a manual close-out must commit exactly once, at settlement"
  }
}

run "table `/wipe-memory`: refused while the policy is switched off" {
  event "command" {
    name    = "wipe-memory"
    enabled = false
    expect {
      rules   = ["wipe_command_refused_while_disabled"]
      effects = [{ effect = "reply", text = "Context wiping is switched off in this session; turn it on to use /wipe-memory." }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "table Hard reserve: 'New wipe requests only acknowledge' a stop-pending reset" {
  state = { request = "stop-pending", request_window = "w1" }
  event "tool" {
    name      = "wipe_memory"
    window_id = "w2"
    expect {
      rules   = ["tool_request_only_acknowledges_stop_pending"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name      = "wipe-memory"
    window_id = "w2"
    expect {
      rules   = ["wipe_command_only_acknowledges_stop_pending"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { request = "stop-pending", request_window = "w1" }
  }
}

run "table Hard reserve: 'empty automatic follow-up is cancelled before provider work, while real queued user input is answered before stopping'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "request" {
    window_id = "w2"
    queued    = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    window_id = "w2"
  }
  event "request" {
    window_id = "w2"
    expect {
      rules   = ["stop_pending_cancels_empty_follow_up"]
      effects = [{ effect = "stop" }]
    }
  }
}

run "table Hard reserve: no follow-up cancellation before the reset is committed (old window still active)" {
  state = { request = "stop-pending", request_window = "w1" }
  event "request" {
    window_id = "w1"
    expect {
      rules   = []
      effects = []
    }
  }
}

run "table Hard reserve: the manual stop survives to settlement after queued input" {
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    tokens       = 186000
    tool_results = 1
    expect {
      effects = [{ effect = "commit_reset", continue = false }]
    }
  }
  event "request" {
    window_id = "w2"
    queued    = true
    expect {
      effects = []
    }
  }
  event "turn_end" {
    window_id = "w2"
    tokens    = 3000
    expect {
      effects = []
    }
  }
  event "before_settle" {
    window_id = "w2"
    expect {
      effects = [{ effect = "stop" }]
    }
  }
}

run "table Abort or error: 'Manual overflow clears and stops without retry, even with automatic reset disabled'" {
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    auto_reset = false
  }
  event "before_settle" {
    outcome    = "error"
    auto_reset = false
    expect {
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
  event "settled" {}
  expect {
    state = { request = "none", overflow = "idle" }
  }
}

run "table `/compact` while active: 'A manual attempt receives an actionable /wipe-memory notice'" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "before_compact" {
    reason = "manual"
    expect {
      rules   = ["manual_compact_cancelled_with_wipe_memory_notice"]
      effects = [{ effect = "cancel_compaction", text = "/compact is off while wipe_memory is on: a summary would carry the old history back into the context window. Run /wipe-memory instead: the agent saves its notes, then its window is wiped." }]
    }
  }
}

run "table `/compact` while active: 'Cancel native compaction' of a threshold or overflow attempt" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1" }
  event "before_compact" {
    reason = "threshold"
    expect {
      rules   = ["automatic_compact_cancelled_while_active"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  event "before_compact" {
    reason = "overflow"
    expect {
      rules   = ["automatic_compact_cancelled_while_active"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  assert {
    condition     = "all(decisions, {!('text' in .effects[0])})"
    error_message = "an automatic compaction is cancelled without a user notice"
  }
}

run "table `/compact` while active: a stop-pending run also cancels compaction" {
  state = { request = "stop-pending", request_window = "w1" }
  event "before_compact" {
    window_id = "w2"
    reason    = "manual"
    expect {
      rules = ["manual_compact_cancelled_with_wipe_memory_notice"]
    }
  }
}

run "table `/compact` while active: 'active' is the policy being on — a manual /compact with no close-out armed is cancelled with the /wipe-memory notice" {
  event "before_compact" {
    reason = "manual"
    expect {
      rules   = ["manual_compact_cancelled_with_wipe_memory_notice"]
      effects = [{ effect = "cancel_compaction", text = "/compact is off while wipe_memory is on: a summary would carry the old history back into the context window. Run /wipe-memory instead: the agent saves its notes, then its window is wiped." }]
    }
  }
}

run "table `/compact` while active: 'Cancel native compaction' between two close-outs, right after settled cleared one" {
  event "command" {
    name = "wipe-memory"
  }
  event "before_settle" {
    expect {
      rules = ["settle_commits_manual_close_out"]
    }
  }
  event "settled" {
    window_id = "w2"
  }
  event "before_compact" {
    window_id = "w2"
    reason    = "threshold"
    expect {
      rules   = ["automatic_compact_cancelled_while_active"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "table `/compact` while active: a provider overflow's native compaction is cancelled, so the bounded overflow recovery is the only recovery" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules = ["turn_end_overflow_arms_recovery"]
    }
  }
  event "before_compact" {
    reason     = "overflow"
    will_retry = true
    expect {
      rules   = ["automatic_compact_cancelled_while_active"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_overflow_recovery_gets_one_attempt"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "table `/compact` while active: switched off, Pi compacts as it would on a branch with no reset" {
  event "before_compact" {
    reason  = "manual"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "before_compact" {
    reason  = "threshold"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
}

run "table `/compact` while active: switched off, a branch that holds a reset is not summarised, which 'could otherwise summarize pre-reset history back into the active window'" {
  event "before_compact" {
    reason      = "manual"
    enabled     = false
    after_reset = true
    expect {
      rules   = ["manual_compact_cancelled_after_reset_while_off"]
      effects = [{ effect = "cancel_compaction", text = "/compact was cancelled: this session branch holds a context reset, and a summary would carry the wiped history back. Turn the policy on and run /wipe-memory to start a fresh window." }]
    }
  }
  event "before_compact" {
    reason      = "overflow"
    enabled     = false
    after_reset = true
    expect {
      rules   = ["automatic_compact_cancelled_after_reset_while_off"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
}

run "table `/compact` while active: an aborted signal is cancelled" {
  event "before_compact" {
    reason         = "threshold"
    enabled        = false
    signal_aborted = true
    expect {
      rules   = ["compaction_aborted_signal_cancels"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
}

# ============================================================ Budget staging and notifications

run "budget: 'The early reminder is staged once per window when remaining budget reaches reserve + reminderMarginTokens'" {
  event "request" {
    tokens = 159000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 159000
  }
  event "request" {
    tokens = 159040
    expect {
      rules   = ["budget_reminder_staged_once_per_window"]
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 160000
    expect {
      rules   = ["budget_reminder_durable_at_completed_turn"]
      effects = [{ effect = "notify", level = "info", text = "Context budget is getting low; the agent was reminded to keep its notes current." }]
    }
  }
  event "request" {
    tokens = 161000
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    tokens    = 165000
    expect {
      rules   = ["budget_reminder_staged_once_per_window"]
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
  expect {
    state = { reminder_window = "w1", draft = "reminder", draft_window = "w2", request = "none" }
  }
}

run "budget: reminder_margin moves the reminder threshold" {
  params = { reminder_margin = 50000 }
  event "request" {
    tokens = 134000
    expect {
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
}

run "budget: 'The final close-out warning is staged/attached at reserve + WARNING_RUNWAY_TOKENS' and arms an automatic close-out" {
  event "request" {
    tokens = 171300
    expect {
      rules   = ["budget_reminder_staged_once_per_window"]
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 171300
  }
  event "request" {
    tokens = 171328
    expect {
      rules   = ["budget_warning_staged_once_per_window", "budget_warning_arms_automatic_close_out"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 172000
    expect {
      rules   = ["budget_warning_durable_at_completed_turn", "turn_end_close_out_stays_armed"]
      effects = [{ effect = "notify", level = "warning", text = "Context window nearly full; the agent was asked to save its notes and wipe the window." }]
    }
  }
  expect {
    state = { request = "close-out", request_source = "automatic", request_window = "w1", warning_window = "w1", reminder_window = "w1", draft = "none" }
  }
}

run "budget: warning_runway moves the close-out warning threshold" {
  params = { warning_runway = 30000 }
  event "request" {
    tokens = 153700
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "budget: the close-out warning goes out 'only when automatic compaction is enabled'" {
  event "request" {
    tokens          = 175000
    auto_compaction = false
    expect {
      rules   = ["budget_reminder_staged_once_per_window"]
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "budget: no reminder or warning while the policy is switched off" {
  event "request" {
    tokens  = 180000
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", draft = "none" }
  }
}

run "budget: 'After a budget warning is durable, the extension does not repeat it in that window'" {
  event "request" {
    tokens = 172000
  }
  event "turn_end" {
    tokens = 172000
  }
  event "request" {
    tokens = 173000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 173000
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
}

run "budget: 'each eligible low-budget request re-arms transient automatic close-out ... the next request can retry without another warning'" {
  state = { warning_window = "w1", reminder_window = "w1" }
  event "request" {
    tokens = 174000
    expect {
      rules   = ["budget_warning_arms_automatic_close_out"]
      effects = []
    }
  }
  event "turn_end" {
    outcome = "aborted"
  }
  event "request" {
    tokens = 174500
    expect {
      rules   = ["budget_warning_arms_automatic_close_out"]
      effects = []
    }
  }
  expect {
    state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  }
}

run "budget: 'Budget drafts ... are discarded on abort, failed turn' and staged again by the next request" {
  event "request" {
    tokens = 172000
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch", "turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
  event "request" {
    tokens = 172000
    expect {
      rules   = ["budget_warning_staged_once_per_window", "budget_warning_arms_automatic_close_out"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch", "turn_end_user_abort_clears_everything"]
      effects = []
    }
  }
  expect {
    state = { draft = "none", warning_window = "" }
  }
}

run "budget: 'Budget drafts ... are discarded on ... window mismatch'" {
  event "request" {
    tokens = 160000
  }
  event "turn_end" {
    window_id = "w2"
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch"]
      effects = []
    }
  }
  expect {
    state = { draft = "none", reminder_window = "" }
  }
}

run "budget: 'Budget drafts ... are discarded on ... transition'" {
  event "request" {
    tokens = 160000
  }
  event "session_tree" {
    expect {
      rules   = ["budget_draft_discarded_on_transition", "session_start_or_tree_clears_and_repairs_tail"]
      effects = [{ effect = "repair" }]
    }
  }
  expect {
    state = { draft = "none", draft_window = "", reminder_window = "" }
  }
}

run "budget: a new session forgets durable budget notices of the old one" {
  state = { warning_window = "w1", reminder_window = "w1", draft = "reminder", draft_window = "w1" }
  event "session_start" {
    reason = "new"
    expect {
      rules   = ["new_session_forgets_budget_notices", "session_start_or_tree_clears_and_repairs_tail"]
      effects = [{ effect = "repair" }]
    }
  }
  event "request" {
    tokens = 172000
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "budget: 'an aborted manual request cannot suppress a later budget warning'" {
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      effects_contain = [{ effect = "inject", message = "manual_checkpoint_warning", deliver = "turn" }]
    }
  }
  event "turn_end" {
    outcome = "aborted"
  }
  event "settled" {
    aborted = true
  }
  event "request" {
    tokens = 172000
    expect {
      rules   = ["budget_warning_staged_once_per_window", "budget_warning_arms_automatic_close_out"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "budget: 'An explicit wipe_memory commits the boundary' inside the budget close-out" {
  event "request" {
    tokens = 172000
  }
  event "turn_end" {
    tokens = 172500
  }
  event "request" {
    tokens = 172500
  }
  event "tool" {
    name   = "wipe_memory"
    tokens = 172500
    expect {
      rules = ["tool_request_upgrades_budget_close_out"]
    }
  }
  event "turn_end" {
    tokens       = 173000
    tool_results = 1
    expect {
      rules   = ["turn_end_commits_tool_request"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
}

run "budget: 'a successful normal stop alone never resets or requests continuation'" {
  event "request" {
    tokens = 172000
  }
  event "turn_end" {
    tokens = 172500
  }
  event "before_settle" {
    tokens = 172500
    expect {
      rules   = ["settle_clears_automatic_close_out"]
      effects = []
    }
  }
  event "settled" {
    tokens = 172500
    expect {
      effects = []
    }
  }
  expect {
    state = { request = "none", warning_window = "w1" }
  }
}

# ============================================================ guards, one condition at a time

run "budget: a draft is not durable after 'a synthetic stopReason: \"aborted\"'" {
  event "request" {
    tokens = 172000
  }
  event "turn_end" {
    tokens          = 172000
    synthetic_abort = true
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch", "turn_end_synthetic_abort_clears_without_commit"]
      effects = []
    }
  }
  event "request" {
    tokens = 160000
  }
  event "turn_end" {
    outcome         = "completed"
    synthetic_abort = true
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch", "turn_end_synthetic_abort_clears_without_commit"]
      effects = []
    }
  }
  expect {
    state = { draft = "none", warning_window = "", reminder_window = "" }
  }
}

run "budget: a warning draft is 'discarded on ... window mismatch'" {
  event "request" {
    tokens = 172000
  }
  event "turn_end" {
    window_id = "w2"
    expect {
      effects = []
    }
  }
  expect {
    state = { draft = "none", warning_window = "" }
  }
}

run "budget: a reminder draft is discarded by a 'failed turn'" {
  event "request" {
    tokens = 160000
  }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["budget_draft_discarded_by_failed_turn_or_window_mismatch", "turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
  expect {
    state = { draft = "none", reminder_window = "" }
  }
}

run "tool_request: another tool's call is ignored while switched off and beside a pending tool request" {
  event "tool" {
    name    = "read"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "tool" {
    name = "wipe_memory"
  }
  event "tool" {
    name = "read"
    expect {
      rules   = []
      effects = []
    }
  }
}

run "close_out: another command is ignored while switched off, beside a manual close-out and beside a tool request" {
  event "command" {
    name    = "status"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "command" {
    name = "wipe-memory"
  }
  event "command" {
    name = "status"
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    outcome = "error"
  }
  event "tool" {
    name = "wipe_memory"
  }
  event "command" {
    name = "status"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "tool-requested" }
  }
}

# Seed 000: "An ordinary close-out error is dropped without reset." With
# Pi's retries on, the retried turn then completes; the user who asked for
# the wipe is told once that it was dropped and how to ask again.
run "turn_end: a non-overflow error drops a manual close-out ('Other failures drop the request') and says so once" {
  state = { request = "close-out", request_source = "manual", request_window = "w1" }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["turn_end_failure_drops_manual_close_out_and_says_so"]
      effects = [{ effect = "notify", level = "warning", text = "/wipe-memory did not happen: a turn of the close-out failed (a provider error), and a failed turn never completes a close-out, so nothing was wiped. Run /wipe-memory again to ask for it." }]
    }
  }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
  event "turn_end" {
    expect {
      effects = []
    }
  }
  event "before_settle" {
    expect {
      effects = []
    }
  }
  expect {
    state = { request = "none", overflow = "idle" }
  }
}

run "turn_end: a non-overflow error drops an automatic close-out without a notice (nobody asked for it)" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["turn_end_failure_drops_request_keeps_overflow_chain"]
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "turn_end: a completed turn is never an overflow failure" {
  state = { request = "tool-requested", request_source = "tool", request_window = "w1", overflow = "spent" }
  event "turn_end" {
    outcome = "completed"
    error   = "overflow"
    expect {
      rules   = ["turn_end_commits_tool_request"]
      effects = [{ effect = "commit_reset", continue = true }]
    }
  }
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    outcome = "completed"
    error   = "overflow"
    expect {
      rules = ["turn_end_close_out_stays_armed"]
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "turn_end: a spent chain is kept, not re-armed, when queued, without automatic reset or switched off ('preserve the overflow chain')" {
  state = { overflow = "spent" }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    queued  = true
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  event "turn_end" {
    outcome    = "error"
    error      = "overflow"
    auto_reset = false
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    enabled = false
    expect {
      rules = ["turn_end_failure_drops_request_keeps_overflow_chain"]
    }
  }
  expect {
    state = { overflow = "spent" }
  }
}

run "turn_end: no hard-reserve commit in a switched-off turn ('A successful, enabled turn')" {
  event "turn_end" {
    tokens  = 190000
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    tokens  = 190000
    enabled = false
    expect {
      rules   = ["turn_end_close_out_stays_armed"]
      effects = []
    }
  }
}

run "before_settle: a switched-off stop-pending run only stops, it never retries construction" {
  state = { request = "stop-pending", request_window = "w1" }
  event "before_settle" {
    enabled = false
    expect {
      rules   = ["settle_stop_pending_needs_only_a_stop"]
      effects = [{ effect = "stop" }]
    }
  }
}

run "before_settle: pending manual overflow commits only 'when enabled'" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  event "before_settle" {
    outcome = "error"
    enabled = false
    expect {
      rules   = ["settle_overflow_chain_ends_without_reset_when_off"]
      effects = []
    }
  }
  expect {
    state = { request = "none", request_source = "none", overflow = "idle" }
  }
}

run "table `/wipe-memory`: no checkpoint warning when switched off or already reset, even when idle" {
  event "command" {
    name    = "wipe-memory"
    enabled = false
    idle    = true
    expect {
      rules   = ["wipe_command_refused_while_disabled"]
      effects = [{ effect = "reply" }]
    }
  }
  event "turn_end" {
    outcome = "aborted"
  }
  event "command" {
    name = "wipe-memory"
    idle = true
  }
  event "turn_end" {
    tokens = 190000
  }
  event "command" {
    name      = "wipe-memory"
    window_id = "w2"
    idle      = true
    expect {
      rules   = ["wipe_command_only_acknowledges_stop_pending"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      rules   = ["wipe_command_only_acknowledges_stop_pending"]
      effects = [{ effect = "reply" }]
    }
  }
}

run "close_out: an idle upgrade of a budget close-out starts the turn with the warning" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1" }
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      rules = ["wipe_command_upgrades_automatic_close_out", "manual_checkpoint_warning_starts_turn_when_idle"]
      effects = [
        { effect = "reply" },
        { effect = "inject", message = "manual_checkpoint_warning", deliver = "turn" },
      ]
    }
  }
  event "command" {
    name = "wipe-memory"
    idle = true
    expect {
      rules   = ["wipe_command_deduplicates_manual_close_out"]
      effects = [{ effect = "reply" }]
    }
  }
}

run "turn_end: an overflow fact on a completed turn neither arms recovery nor marks a manual overflow" {
  event "turn_end" {
    outcome = "completed"
    error   = "overflow"
    expect {
      rules   = []
      effects = []
    }
  }
  event "command" {
    name = "wipe-memory"
  }
  event "turn_end" {
    outcome = "completed"
    error   = "overflow"
    expect {
      rules = ["turn_end_close_out_stays_armed"]
    }
  }
  expect {
    state = { request = "close-out", overflow = "idle" }
  }
}

run "table `wipe_memory` tool: 'after the complete tool batch and any accepted budget drafts, append the reset boundary'" {
  event "request" {
    tokens = 172000
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "tool" {
    name = "wipe_memory"
    expect {
      rules = ["tool_request_upgrades_budget_close_out"]
    }
  }
  event "turn_end" {
    tokens       = 174000
    tool_results = 2
    expect {
      rules = ["budget_warning_durable_at_completed_turn", "turn_end_commits_tool_request"]
      effects = [
        { effect = "notify", level = "warning" },
        { effect = "commit_reset", continue = true },
      ]
    }
  }
  expect {
    state = { request = "none", draft = "none", warning_window = "w1" }
  }
}

run "tree: '/tree summary generation is suppressed with an empty summary when either branch crosses a reset'" {
  event "before_tree" {
    crosses_reset = true
    expect {
      rules   = ["tree_summary_suppressed_across_reset"]
      effects = [{ effect = "suppress_summary" }]
    }
  }
  event "before_tree" {
    crosses_reset = false
    expect {
      rules   = []
      effects = []
    }
  }
}

run "request: 'Pending messages or a real user message after the reset marker bypass cancellation so queued work is not swallowed'" {
  state = { request = "stop-pending", request_window = "w1" }
  event "request" {
    window_id  = "w2"
    user_input = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    queued    = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    expect {
      rules   = ["stop_pending_cancels_empty_follow_up"]
      effects = [{ effect = "stop" }]
    }
  }
}

# ============================================================ the overflow chain, read as the seed's reducer reads it

run "overflow chain: 'A successful, enabled turn' ends the failure chain, so a settlement after a queued turn got past the overflow recovers nothing" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules = ["turn_end_overflow_arms_recovery"]
    }
  }
  event "before_settle" {
    outcome = "error"
    queued  = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {}
  event "turn_end" {
    outcome = "completed"
    expect {
      rules   = ["turn_end_success_ends_overflow_chain"]
      effects = []
    }
  }
  event "before_settle" {
    outcome = "completed"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "overflow chain: a completed turn after the one recovery ends the spent chain ('until the chain settles')" {
  state = { overflow = "spent" }
  event "turn_end" {
    window_id = "w2"
    expect {
      rules = ["turn_end_success_ends_overflow_chain"]
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "overflow chain: every completed-turn outcome of the request phase ends the chain too" {
  state = { request = "close-out", request_source = "automatic", request_window = "w1", overflow = "pending" }
  event "turn_end" {
    expect {
      rules = ["turn_end_close_out_stays_armed"]
    }
  }
  expect {
    state = { request = "close-out", overflow = "idle" }
  }
}

run "overflow chain: 'Manual hard-reserve commits request no continuation' and end the failure chain" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending-spent" }
  event "turn_end" {
    tokens = 190000
    expect {
      rules   = ["turn_end_manual_hard_reserve_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false }]
    }
  }
  event "turn_end" {
    window_id = "w2"
    expect {
      rules = ["turn_end_stop_pending_cannot_reset_again"]
    }
  }
  expect {
    state = { request = "stop-pending", overflow = "idle" }
  }
}

run "overflow chain: 'Other pending overflow recovery gets its one bounded attempt when enabled and unqueued' — with automatic reset off by settlement, the chain ends without a reset" {
  state = { overflow = "pending" }
  event "before_settle" {
    outcome    = "error"
    auto_reset = false
    expect {
      rules   = ["settle_overflow_chain_ends_without_reset_when_off"]
      effects = []
    }
  }
  expect {
    state = { overflow = "idle" }
  }
}

run "overflow chain: 'Other pending overflow recovery gets its one bounded attempt when enabled and unqueued' — a pending-spent chain moves to spent with no second reset" {
  state = { overflow = "pending-spent" }
  event "before_settle" {
    outcome = "error"
    expect {
      rules   = ["settle_spent_overflow_chain_gets_no_second_reset"]
      effects = []
    }
  }
  expect {
    state = { overflow = "spent" }
  }
}

run "overflow chain: 'Other pending overflow recovery gets its one bounded attempt when enabled and unqueued' — queued work recovers nothing yet, also for a spent chain" {
  state = { overflow = "pending-spent" }
  event "before_settle" {
    outcome = "error"
    queued  = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { overflow = "pending-spent" }
  }
}

run "overflow chain: 'Pending manual overflow ... does not require automatic reset enablement' — the manual path keeps its own rule when the chain would otherwise end" {
  state = { request = "close-out", request_source = "manual", request_window = "w1", overflow = "pending" }
  event "before_settle" {
    outcome    = "error"
    auto_reset = false
    expect {
      rules   = ["settle_manual_overflow_commits_without_continuation"]
      effects = [{ effect = "commit_reset", continue = false, stop = true }]
    }
  }
}
