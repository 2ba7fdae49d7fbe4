# Tests of the built-in new_context policy (seed 001).
#
# Every run is named after the row of the seed's lifecycle table (or the
# sentence) it pins.
#
# Warning threshold with the contract's defaults (context_window 200000,
# reserve 16384) and the default warning_runway 12288:
#   warning due   remaining <= 16384 + 12288 = 28672  ->  tokens >= 171328

policy = "new_context"

# ============================================================ stories (seed "SDK tests")

run "story: 'explicit success': new_context, settle, compact, confirm, complete, continue" {
  event "tool" {
    name = "new_context"
    expect {
      rules   = ["new_context_marks_explicit_request"]
      effects = [{ effect = "reply", text = "New context requested: this window is reset when the run settles, and you continue in a fresh window. Stop here.", terminate = true }]
    }
  }
  event "turn_end" {
    tool_results = 1
    expect {
      rules   = []
      effects = []
    }
  }
  event "agent_end" {
    expect {
      rules   = ["agent_end_is_a_no_op_for_instant_reset"]
      effects = []
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = ["settled_starts_one_identified_attempt"]
      effects = [{ effect = "compact", attempt = 1 }]
    }
  }
  event "before_compact" {
    reason = "manual"
    idle   = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "compact_done" {
    reason    = "manual"
    attempt   = 1
    window_id = "w2"
    expect {
      rules   = ["matching_compact_done_confirms_boundary"]
      effects = []
    }
  }
  event "attempt_complete" {
    attempt   = 1
    window_id = "w2"
    idle      = true
    expect {
      rules   = ["attempt_complete_continues_confirmed_boundary"]
      effects = [{ effect = "continue" }]
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "story: 'instant automatic reset': threshold compaction resets on the spot with no turn" {
  event "request" {
    tokens = 171328
    expect {
      rules   = ["checkpoint_warning_once_per_window"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 180000
    expect {
      effects = []
    }
  }
  event "agent_end" {
    tokens = 180000
    expect {
      rules   = ["agent_end_is_a_no_op_for_instant_reset"]
      effects = []
    }
  }
  event "before_compact" {
    reason = "threshold"
    tokens = 180000
    idle   = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "compact_done" {
    reason    = "threshold"
    window_id = "w2"
    expect {
      rules   = []
      effects = []
    }
  }
  event "settled" {
    window_id = "w2"
    idle      = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 0, warned_window = "w1" }
  }
}

# ============================================================ row `new_context`

run "new_context: 'Mark explicit request'" {
  event "tool" {
    name = "new_context"
    expect {
      rules   = ["new_context_marks_explicit_request"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { request = "pending", attempt = "none" }
  }
}

run "new_context: 'repeated calls report already pending'" {
  event "tool" {
    name = "new_context"
  }
  event "tool" {
    name = "new_context"
    expect {
      rules   = ["new_context_repeat_reports_already_pending"]
      effects = [{ effect = "reply", text = "A new context is already pending for this window; it happens when the run settles. Stop here.", terminate = true }]
    }
  }
  event "settled" {
    idle = true
    expect {
      effects = [{ effect = "compact", attempt = 1 }]
    }
  }
  event "tool" {
    name = "new_context"
    expect {
      rules   = ["new_context_repeat_reports_already_pending"]
      effects = [{ effect = "reply", terminate = true }]
    }
  }
  expect {
    state = { request = "pending", attempt = "running", attempt_id = 1 }
  }
}

run "new_context: 'Tool returns terminal output'" {
  event "tool" {
    name = "new_context"
    expect {
      effects = [{ effect = "reply", terminate = true }]
    }
  }
  event "tool" {
    name = "new_context"
    expect {
      effects = [{ effect = "reply", terminate = true }]
    }
  }
  event "tool" {
    name    = "new_context"
    enabled = false
    expect {
      effects = [{ effect = "reply", terminate = true }]
    }
  }
}

run "new_context: switched off ('toggle off') takes no request" {
  event "tool" {
    name    = "new_context"
    enabled = false
    expect {
      rules   = ["new_context_refused_while_disabled"]
      effects = [{ effect = "reply", text = "new_context is switched off in this session; nothing was reset.", terminate = true }]
    }
  }
  event "settled" {
    idle    = true
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "new_context: another tool's call is not a request" {
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

# ============================================================ row `session_before_compact`

run "before_compact: 'Manual ... session_before_compact, idle or streaming: Build the reset boundary immediately'" {
  event "before_compact" {
    reason = "manual"
    idle   = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "before_compact" {
    reason = "manual"
    idle   = false
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
}

run "before_compact: 'threshold session_before_compact, idle or streaming: Build the reset boundary immediately'" {
  event "before_compact" {
    reason = "threshold"
    idle   = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "before_compact" {
    reason = "threshold"
    idle   = false
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
}

run "before_compact: 'overflow session_before_compact, idle or streaming: Build the reset boundary immediately'" {
  event "before_compact" {
    reason     = "overflow"
    will_retry = true
    idle       = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "before_compact" {
    reason     = "overflow"
    will_retry = true
    idle       = false
    queued     = true
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
}

run "before_compact: 'Never cancel and never take a model turn', whatever is pending" {
  state = { request = "pending", attempt = "running", attempt_id = 3, attempt_seq = 3 }
  event "before_compact" {
    reason = "threshold"
    queued = true
    expect {
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "before_compact" {
    reason = "manual"
    idle   = true
    expect {
      effects = [{ effect = "provide_reset" }]
    }
  }
  assert {
    condition     = "len(decisions) == 2 && len(decisions[0].effects) == 1 && len(decisions[1].effects) == 1"
    error_message = "before_compact must answer with the reset boundary alone: no cancel, no continue, no message"
  }
  expect {
    state = { request = "pending", attempt = "running", attempt_id = 3 }
  }
}

run "before_compact: 'an aborted signal returns { cancel: true }'" {
  event "before_compact" {
    reason         = "threshold"
    signal_aborted = true
    expect {
      rules   = ["compaction_aborted_signal_cancels"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  event "before_compact" {
    reason         = "manual"
    signal_aborted = true
    idle           = true
    expect {
      rules   = ["compaction_aborted_signal_cancels"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
}

run "before_compact: switched off, the host's own compaction is left alone" {
  event "before_compact" {
    reason  = "threshold"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "before_compact" {
    reason         = "manual"
    enabled        = false
    signal_aborted = true
    expect {
      rules   = []
      effects = []
    }
  }
}

# ============================================================ row `agent_end`

run "agent_end: 'No-op for an instant reset'" {
  event "before_compact" {
    reason = "overflow"
  }
  event "agent_end" {
    window_id = "w2"
    idle      = true
    expect {
      rules   = ["agent_end_is_a_no_op_for_instant_reset"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 0 }
  }
}

# ============================================================ row `agent_settled`

run "settled: 'If idle and an explicit request is pending, create one identified attempt and request ctx.compact'" {
  state = { request = "pending" }
  event "settled" {
    idle = true
    expect {
      rules   = ["settled_starts_one_identified_attempt"]
      effects = [{ effect = "compact", attempt = 1 }]
    }
  }
  expect {
    state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  }
}

run "settled: 'create one identified attempt' with a new number after earlier attempts" {
  state = { request = "pending", attempt_seq = 41 }
  event "settled" {
    idle = true
    expect {
      effects = [{ effect = "compact", attempt = 42 }]
    }
  }
  expect {
    state = { attempt = "running", attempt_id = 42, attempt_seq = 42 }
  }
}

run "settled: 'If idle': not while streaming" {
  state = { request = "pending" }
  event "settled" {
    idle = false
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "pending", attempt = "none", attempt_id = 0, attempt_seq = 0 }
  }
}

run "settled: 'an explicit request is pending': nothing without one" {
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { attempt = "none", attempt_seq = 0 }
  }
}

run "settled: 'create one identified attempt': no second attempt while one is outstanding" {
  state = { request = "pending" }
  event "settled" {
    idle = true
    expect {
      effects = [{ effect = "compact", attempt = 1 }]
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "compact_done" {
    attempt = 1
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  }
}

# ============================================================ row `Matching session_compact`

run "compact_done: 'Matching session_compact: Confirm boundary'" {
  state = { request = "pending", attempt = "running", attempt_id = 2, attempt_seq = 2 }
  event "compact_done" {
    attempt = 2
    expect {
      rules   = ["matching_compact_done_confirms_boundary"]
      effects = []
    }
  }
  expect {
    state = { attempt = "confirmed", attempt_id = 2 }
  }
}

run "compact_done: 'Matching': another attempt's session_compact confirms nothing" {
  state = { request = "pending", attempt = "running", attempt_id = 2, attempt_seq = 2 }
  event "compact_done" {
    attempt = 1
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { attempt = "running", attempt_id = 2 }
  }
}

run "compact_done: 'Native compaction retains its own scheduling'" {
  event "compact_done" {
    reason = "threshold"
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_complete" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0 }
  }
}

# ============================================================ row `Attempt onComplete`

run "attempt_complete: 'send continuation only for a confirmed boundary when idle with no queued messages'" {
  state = { request = "pending", attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  event "attempt_complete" {
    attempt = 1
    idle    = true
    queued  = false
    expect {
      rules   = ["attempt_complete_continues_confirmed_boundary"]
      effects = [{ effect = "continue" }]
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "attempt_complete: 'Consume attempt': no continuation without a confirmed boundary" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "attempt_complete" {
    attempt = 1
    idle    = true
    expect {
      rules   = ["attempt_complete_consumes_without_continuation"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0 }
  }
}

run "attempt_complete: 'only ... with no queued messages'" {
  state = { request = "pending", attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  event "attempt_complete" {
    attempt = 1
    idle    = true
    queued  = true
    expect {
      rules   = ["attempt_complete_consumes_without_continuation"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0 }
  }
}

run "attempt_complete: 'only ... when idle'" {
  state = { request = "pending", attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  event "attempt_complete" {
    attempt = 1
    idle    = false
    expect {
      rules   = ["attempt_complete_consumes_without_continuation"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0 }
  }
}

# ============================================================ row `Attempt onError or synchronous throw`

run "attempt_error: 'Clear attempt/request, warn, retain history'" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "attempt_error" {
    attempt = 1
    error   = "nothing to compact"
    expect {
      rules = ["attempt_error_clears_and_warns_without_retry"]
      effects = [{
        effect = "notify"
        level  = "warning"
        text   = "The new context could not be started; the session history is unchanged. Call new_context again or run /compact to retry. (nothing to compact)"
      }]
    }
  }
  assert {
    condition     = "len(last.effects) == 1 && last.effects[0].effect == 'notify'"
    error_message = "an attempt error only warns: it must not reset, compact or continue (history is retained)"
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "attempt_error: 'No automatic retry loop'" {
  state = { request = "pending", attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  event "attempt_error" {
    attempt = 1
    expect {
      rules   = ["attempt_error_clears_and_warns_without_retry"]
      effects = [{ effect = "notify", level = "warning", text = "The new context could not be started; the session history is unchanged. Call new_context again or run /compact to retry." }]
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "agent_end" {
    idle = true
    expect {
      effects = []
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_seq = 1 }
  }
}

# ============================================================ row `Shutdown / start / tree / toggle off`

run "invalidate: 'Shutdown ... Invalidate outstanding attempt'" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "session_shutdown" {
    expect {
      rules   = ["session_change_invalidates_attempt"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "invalidate: 'start ... Invalidate outstanding attempt'" {
  state = { request = "pending", attempt = "confirmed", attempt_id = 1, attempt_seq = 1 }
  event "session_start" {
    reason = "resume"
    expect {
      rules   = ["session_change_invalidates_attempt"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "invalidate: 'tree ... Invalidate outstanding attempt'" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "session_tree" {
    expect {
      rules   = ["session_change_invalidates_attempt"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "invalidate: 'toggle off ... Invalidate outstanding attempt'" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "toggle" {
    on = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "toggle" {
    on = false
    expect {
      rules   = ["toggle_off_invalidates_attempt"]
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "invalidate: 'Identity checks reject callbacks from older attempts'" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "session_tree" {}
  event "compact_done" {
    attempt = 1
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_complete" {
    attempt = 1
    idle    = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_error" {
    attempt = 1
    error   = "late"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 1 }
  }
}

run "invalidate: 'Identity checks reject callbacks from older attempts' while a newer attempt runs" {
  state = { request = "pending", attempt = "running", attempt_id = 1, attempt_seq = 1 }
  event "toggle" {
    on = false
  }
  event "toggle" {
    on = true
  }
  event "tool" {
    name = "new_context"
  }
  event "settled" {
    idle = true
    expect {
      rules   = ["settled_starts_one_identified_attempt"]
      effects = [{ effect = "compact", attempt = 2 }]
    }
  }
  # attempt 1's callbacks arrive late: rejected, attempt 2 untouched
  event "compact_done" {
    attempt = 1
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_error" {
    attempt = 1
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_complete" {
    attempt = 1
    idle    = true
    expect {
      rules   = []
      effects = []
    }
  }
  # attempt 2's own callbacks still work
  event "compact_done" {
    attempt = 2
    expect {
      rules = ["matching_compact_done_confirms_boundary"]
    }
  }
  # a late completion of attempt 1 does not consume attempt 2 nor continue
  event "attempt_complete" {
    attempt = 1
    idle    = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "attempt_complete" {
    attempt = 2
    idle    = true
    expect {
      rules   = ["attempt_complete_continues_confirmed_boundary"]
      effects = [{ effect = "continue" }]
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 2 }
  }
}

# ============================================================ the checkpoint warning

run "warning: 'steered earlier from the context hook ... at reserve+12288 tokens remaining'" {
  event "request" {
    tokens = 171327
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {
    tokens = 171328
    expect {
      rules   = ["checkpoint_warning_once_per_window"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  expect {
    state = { warned_window = "", warning_draft = "w1" }
  }
}

run "warning: 'at reserve+12288 tokens remaining' follows the host's reserve and window" {
  event "request" {
    context_window = 100000
    reserve        = 8000
    tokens         = 79711
    expect {
      effects = []
    }
  }
  event "request" {
    context_window = 100000
    reserve        = 8000
    tokens         = 79712
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "warning: 'reserve+12288' is the warning_runway param" {
  params = { warning_runway = 4096 }
  event "request" {
    tokens = 179519
    expect {
      effects = []
    }
  }
  event "request" {
    tokens = 179520
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "warning: 'once per window'" {
  event "request" {
    tokens = 175000
    expect {
      rules = ["checkpoint_warning_once_per_window"]
    }
  }
  event "turn_end" {
    tokens = 176000
    expect {
      rules   = ["checkpoint_warning_delivered_at_completed_turn"]
      effects = []
    }
  }
  event "request" {
    tokens = 185000
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    tokens    = 5000
    expect {
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    tokens    = 175000
    expect {
      rules   = ["checkpoint_warning_once_per_window"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    window_id = "w2"
    tokens    = 176000
  }
  expect {
    state = { warned_window = "w2", warning_draft = "" }
  }
}

# Seed 001: "once per window at reserve+12288 tokens remaining" — once as
# delivered. Pi retries a 503 with the same context: the retried request
# carries the warning again, and the completed turn latches it.
run "warning: 'once per window' — a failed request (503, retried by Pi) does not use it up" {
  event "request" {
    tokens = 175000
    expect {
      rules = ["checkpoint_warning_once_per_window"]
    }
  }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    tokens  = 175000
    expect {
      rules   = ["checkpoint_warning_not_delivered_by_failed_turn"]
      effects = []
    }
  }
  event "request" {
    tokens = 175000
    expect {
      rules   = ["checkpoint_warning_once_per_window"]
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 176000
    expect {
      rules = ["checkpoint_warning_delivered_at_completed_turn"]
    }
  }
  event "request" {
    tokens = 177000
    expect {
      rules = []
    }
  }
  expect {
    state = { warned_window = "w1", warning_draft = "" }
  }
}

run "warning: 'once per window' — an aborted or synthetic-aborted turn does not use it up" {
  event "request" {
    tokens = 175000
  }
  event "turn_end" {
    outcome = "aborted"
    tokens  = 175000
    expect {
      rules = ["checkpoint_warning_not_delivered_by_failed_turn"]
    }
  }
  event "request" {
    tokens = 175000
    expect {
      rules = ["checkpoint_warning_once_per_window"]
    }
  }
  event "turn_end" {
    outcome         = "aborted"
    synthetic_abort = true
    tokens          = 175000
    expect {
      rules = ["checkpoint_warning_not_delivered_by_failed_turn"]
    }
  }
  event "request" {
    tokens = 175000
    expect {
      rules = ["checkpoint_warning_once_per_window"]
    }
  }
  expect {
    state = { warned_window = "", warning_draft = "w1" }
  }
}

run "warning: a turn of another window does not deliver the warning of this one" {
  event "request" {
    tokens = 175000
  }
  event "turn_end" {
    window_id = "w2"
    tokens    = 1000
    expect {
      rules = ["checkpoint_warning_not_delivered_by_failed_turn"]
    }
  }
  expect {
    state = { warned_window = "", warning_draft = "" }
  }
}

run "warning: a session change or the switch drops the warning on its way" {
  event "request" {
    tokens = 175000
  }
  event "toggle" {
    on = false
    expect {
      rules = ["toggle_off_invalidates_attempt", "checkpoint_warning_draft_dropped_on_transition"]
    }
  }
  event "request" {
    tokens = 175000
  }
  event "session_tree" {
    expect {
      rules = ["session_change_invalidates_attempt", "checkpoint_warning_draft_dropped_on_transition"]
    }
  }
  expect {
    state = { warned_window = "", warning_draft = "" }
  }
}

run "warning: 'After it, the model either ends the window itself with new_context': not repeated once it did" {
  state = { request = "pending" }
  event "request" {
    tokens = 190000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { warned_window = "" }
  }
}

run "warning: not while the policy is switched off" {
  event "request" {
    tokens  = 190000
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
}

run "warning: 'or rides into Pi's automatic compaction, which resets on the spot with no turn'" {
  event "request" {
    tokens = 172000
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
  event "turn_end" {
    tokens = 190000
  }
  event "before_compact" {
    reason = "threshold"
    tokens = 190000
    expect {
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "agent_end" {
    window_id = "w2"
    expect {
      effects = []
    }
  }
  event "request" {
    window_id = "w2"
    tokens    = 3000
    expect {
      effects = []
    }
  }
}

# ============================================================ abort, and a native reset while a request is pending

run "settled: a user abort ends explicit work — seed 001 lists abort nowhere as a reason to reset" {
  event "tool" {
    name = "new_context"
    expect {
      rules = ["new_context_marks_explicit_request"]
    }
  }
  event "turn_end" {
    outcome = "aborted"
  }
  event "agent_end" {}
  event "settled" {
    idle    = true
    aborted = true
    expect {
      rules   = ["aborted_run_drops_explicit_request"]
      effects = []
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_id = 0, attempt_seq = 0 }
  }
}

run "compact_done: 'or rides into Pi's automatic compaction, which resets on the spot with no turn' — a native reset satisfies the pending request" {
  event "tool" {
    name = "new_context"
  }
  event "before_compact" {
    reason = "threshold"
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "compact_done" {
    reason = "threshold"
    expect {
      rules   = ["native_reset_satisfies_pending_request"]
      effects = []
    }
  }
  event "agent_end" {}
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", attempt = "none", attempt_seq = 0 }
  }
}

run "compact_done: an overflow compaction turned into a reset also consumes the request, so no continuation follows" {
  event "tool" {
    name = "new_context"
  }
  event "before_compact" {
    reason     = "overflow"
    will_retry = true
  }
  event "compact_done" {
    reason = "overflow"
    expect {
      rules = ["native_reset_satisfies_pending_request"]
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
}

# ============================================================ the uncompactable session

run "settled: 'an uncompactable session produces a warning and waits for a new prompt': an overflow no compaction hook answered warns when the run settles" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules   = ["overflow_waits_for_a_compaction_hook"]
      effects = []
    }
  }
  event "agent_end" {
    expect {
      rules = ["agent_end_is_a_no_op_for_instant_reset"]
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = ["uncompactable_session_warns_and_waits_for_a_prompt"]
      effects = [{ effect = "notify", level = "warning", text = "The context window is full and there is nothing to compact: the history since the last reset does not fit this model's window (Pi found nothing it could cut), so nothing was reset. Switch to a model with a larger window, or go back with /tree or start over with /new, then send a new prompt." }]
    }
  }
  # It waits for a new prompt: the next settlement says nothing more.
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { overflow = "idle", request = "none", attempt = "none" }
  }
}

run "settled: an overflow that Pi's compaction answered is no uncompactable session" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules = ["overflow_waits_for_a_compaction_hook"]
    }
  }
  event "before_compact" {
    reason = "overflow"
    expect {
      rules   = ["compaction_returns_reset_boundary_at_once", "compaction_hook_answers_overflow"]
      effects = [{ effect = "provide_reset" }]
    }
  }
  event "settled" {
    idle = true
    expect {
      rules   = []
      effects = []
    }
  }
}

run "settled: Pi's own failed recovery (compact_failed) is no uncompactable session either" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    expect {
      rules = ["overflow_waits_for_a_compaction_hook"]
    }
  }
  event "compact_failed" {
    reason = "overflow"
    expect {
      rules = ["compaction_hook_answers_overflow"]
    }
  }
  event "settled" {
    expect {
      rules   = []
      effects = []
    }
  }
}

run "turn_end: a completed turn after the overflow got past it" {
  state = { overflow = "unanswered" }
  event "turn_end" {
    outcome = "completed"
    expect {
      rules = ["completed_turn_ends_unanswered_overflow"]
    }
  }
  event "settled" {
    expect {
      rules   = []
      effects = []
    }
  }
}

run "settled: an aborted run drops the unanswered overflow without a warning" {
  state = { overflow = "unanswered" }
  event "settled" {
    aborted = true
    expect {
      rules   = ["unanswered_overflow_dropped_on_transition"]
      effects = []
    }
  }
}

run "turn_end: switched off, an overflow is Pi's own business" {
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
}
