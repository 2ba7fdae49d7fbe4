# Tests of the built-in autocompacter policy (seed 002).
#
# Every run is named after the seed sentence it pins (section: 'quote').
#
# Active levels with the default params (notice 180000, warning 220000,
# force 270000, cap 270000, ratio 0.8) and the contract's default window
# (200000):
#   active force   min(270000, 270000, 0.8 * 200000)    = 160000
#   ratio          160000 / 270000                      = 0.5926
#   active warning int(220000 * ratio)                   = 130370
#   active notice  int(180000 * ratio)                   = 106666
# With a 100000 window: force 80000, warning 65185, notice 53333.

policy = "autocompacter"

# ============================================================ stories

run "story: request -> checkpoint -> resume ('A requested checkpoint starts the next model turn. The agent resumes from the summary.')" {
  event "tool" {
    name   = "self-compact"
    now_ms = 1000
    expect {
      rules   = ["self_compact_stores_request"]
      effects = [{ effect = "reply", text = "Checkpoint requested: it is taken when this turn and its tool calls finish, and you resume from the summary." }]
    }
  }
  event "turn_end" {
    tool_results = 1
    tokens       = 90000
    now_ms       = 1500
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 1 }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 4000
    expect {
      rules   = ["checkpoint_saved_starts_new_cycle"]
      effects = []
    }
  }
  event "request" {
    tokens = 12000
    now_ms = 4100
    expect {
      rules   = ["new_request_moves_boundary"]
      effects = []
    }
  }
  event "turn_end" {
    tokens = 13000
    now_ms = 6000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle", compacted = false, cooldown_until = 14000, failures = 0, checkpoint_seq = 1, checkpoint_id = 0 }
  }
}

run "story: force at the limit ('It compacts at the active force limit.')" {
  event "turn_end" {
    tokens = 106666
    expect {
      rules   = ["notice_once_per_cycle"]
      effects = [{ effect = "inject", message = "notice", deliver = "turn" }]
    }
  }
  event "turn_end" {
    tokens = 130370
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
  event "turn_end" {
    tokens = 150000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens       = 160000
    tool_results = 2
    now_ms       = 30000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 33000
    expect {
      rules   = ["checkpoint_saved_starts_new_cycle"]
      effects = []
    }
  }
  expect {
    state = { phase = "idle", noticed = false, warned = false, compacted = true, cooldown_until = 43000 }
  }
}

run "story: summary failure -> retry after delay -> pause after three ('Three failures pause automatic attempts.')" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 170000
    now_ms = 1000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 1 }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    error   = "provider error"
    now_ms  = 2000
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (provider error) The next automatic attempt waits 5 s: it runs at the first turn end after that." }]
    }
  }
  event "turn_end" {
    tokens = 171000
    now_ms = 6999
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 172000
    now_ms = 7000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 2 }]
    }
  }
  event "summary_done" {
    attempt = 2
    ok      = false
    now_ms  = 8000
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error" }]
    }
  }
  event "turn_end" {
    tokens = 173000
    now_ms = 17999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 174000
    now_ms = 18000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 3 }]
    }
  }
  event "summary_done" {
    attempt = 3
    ok      = false
    now_ms  = 19000
    expect {
      rules   = ["summary_error_pauses_after_failure_limit"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). Automatic checkpoints are paused until you run /autocompacter, which clears the failures and tries again." }]
    }
  }
  event "turn_end" {
    tokens = 180000
    now_ms = 600000
    expect {
      rules   = []
      effects = []
    }
  }
  event "command" {
    name   = "autocompacter"
    idle   = true
    tokens = 180000
    now_ms = 601000
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now", "autocompacter_clears_failure_state"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 4 }, { effect = "reply" }]
    }
  }
  expect {
    state = { failures = 0, retry_at = 0, phase = "summarizing", resume = false, checkpoint_seq = 4, checkpoint_id = 4 }
  }
}

# ============================================================ Checkpoint lifecycle

run "lifecycle: 'The agent calls self-compact' ... 'The extension stores one request.'" {
  event "tool" {
    name = "self-compact"
    expect {
      rules   = ["self_compact_stores_request"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { request = "tool", phase = "idle" }
  }
}

run "lifecycle: 'or the user runs /autocompacter' while a turn runs: 'The extension stores one request.'" {
  event "command" {
    name = "autocompacter"
    idle = false
    expect {
      rules   = ["autocompacter_while_streaming_stores_request"]
      effects = [{ effect = "reply", text = "Checkpoint requested: it is taken when the current turn and its tool calls finish." }]
    }
  }
  event "turn_end" {
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  expect {
    state = { request = "none", phase = "summarizing", resume = false }
  }
}

run "lifecycle: 'or the user runs /autocompacter' when idle: the checkpoint is taken at once" {
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now"]
      effects = [{ effect = "checkpoint", continue = true }, { effect = "reply", text = "Checkpoint started: the context is being summarised, and the agent resumes from the summary." }]
    }
  }
  expect {
    state = { request = "none", phase = "summarizing", resume = false }
  }
}

run "errors: 'Requested work and turns with pending work can continue': /autocompacter while idle has no work in progress, so a failure leaves the agent idle" {
  event "command" {
    name = "autocompacter"
    idle = true
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    error   = "overloaded"
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (overloaded) The next automatic attempt waits 5 s: it runs at the first turn end after that." }]
    }
  }
}

run "lifecycle: '/autocompacter' when idle takes up a request stored by an earlier run" {
  state = { request = "tool" }
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now"]
      effects = [{ effect = "checkpoint", continue = true }, { effect = "reply" }]
    }
  }
  expect {
    state = { request = "none", phase = "summarizing" }
  }
}

run "lifecycle: 'A second request does not replace it.' (self-compact after self-compact)" {
  event "tool" {
    name = "self-compact"
  }
  event "tool" {
    name = "self-compact"
    expect {
      rules   = ["self_compact_second_request_keeps_first"]
      effects = [{ effect = "reply", text = "A checkpoint is already requested; it is taken at the end of this turn." }]
    }
  }
  expect {
    state = { request = "tool" }
  }
}

run "lifecycle: 'A second request does not replace it.' (/autocompacter after self-compact)" {
  event "tool" {
    name = "self-compact"
  }
  event "command" {
    name = "autocompacter"
    expect {
      rules   = ["autocompacter_second_request_keeps_first"]
      effects = [{ effect = "reply", text = "A checkpoint is already requested; it is taken at the end of this turn." }]
    }
  }
  expect {
    state = { request = "tool" }
  }
}

run "lifecycle: 'A second request does not replace it.' (self-compact after /autocompacter)" {
  event "command" {
    name = "autocompacter"
  }
  event "tool" {
    name = "self-compact"
    expect {
      rules   = ["self_compact_second_request_keeps_first"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { request = "command" }
  }
}

run "lifecycle: another tool's call is not a request" {
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

run "lifecycle: 'Pi finishes the current assistant turn and its tool calls' before the checkpoint" {
  event "request" {
    tokens = 50000
  }
  event "tool" {
    name   = "self-compact"
    tokens = 50000
  }
  event "request" {
    tokens = 52000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens       = 53000
    tool_results = 3
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
}

run "lifecycle: 'A requested checkpoint starts the next model turn.' even without pending work" {
  state = { request = "command" }
  event "turn_end" {
    tool_results = 0
    queued       = false
    expect {
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  expect {
    state = { resume = false }
  }
}

run "lifecycle: 'An aborted or failed turn cancels a queued tool request.' (aborted)" {
  state = { request = "tool" }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules   = ["failed_turn_cancels_queued_request"]
      effects = [{ effect = "notify", level = "info", text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now." }]
    }
  }
  event "turn_end" {
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle" }
  }
}

run "lifecycle: 'An aborted or failed turn cancels a queued tool request.' (failed)" {
  state = { request = "tool" }
  event "turn_end" {
    outcome = "error"
    error   = "other"
    expect {
      rules   = ["failed_turn_cancels_queued_request"]
      effects = [{ effect = "notify", level = "info", text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now." }]
    }
  }
  expect {
    state = { request = "none", phase = "idle" }
  }
}

run "lifecycle: 'An aborted or failed turn cancels a queued tool request.' (synthetic abort)" {
  state = { request = "tool" }
  event "turn_end" {
    outcome         = "completed"
    synthetic_abort = true
    expect {
      rules   = ["failed_turn_cancels_queued_request"]
      effects = [{ effect = "notify", level = "info", text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now." }]
    }
  }
  expect {
    state = { request = "none" }
  }
}

run "lifecycle: 'An aborted or failed turn cancels a queued tool request.': the user's stored /autocompacter is dropped the same way, with a notice, and fires at no later prompt" {
  state = { request = "command" }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules   = ["failed_turn_cancels_queued_request"]
      effects = [{ effect = "notify", level = "info", text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now." }]
    }
  }
  event "turn_end" {
    outcome = "completed"
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: 'Pi finishes the current assistant turn': a synthetic abort is not a finished turn; it drops a stored /autocompacter request" {
  state = { request = "command", compacted = true }
  event "turn_end" {
    synthetic_abort = true
    expect {
      rules   = ["failed_turn_cancels_queued_request"]
      effects = [{ effect = "notify", level = "info", text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now." }]
    }
  }
  event "request" {}
  event "turn_end" {
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: 'This cooldown prevents repeated requests without new work.': a request stored while a checkpoint is written is satisfied by it" {
  state = { request = "tool", phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "turn_end" {
    tokens = 170000
    expect {
      rules   = []
      effects = []
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 1000
    expect {
      state = { request = "none", phase = "idle" }
    }
  }
  event "request" {
    now_ms = 2000
  }
  # not fired at the first turn end after the cooldown
  event "turn_end" {
    now_ms = 12000
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: 'Session replacement also cancels stale work.'" {
  state = { request = "tool", phase = "summarizing", resume = true, checkpoint_seq = 1, checkpoint_id = 1 }
  event "session_start" {
    reason = "new"
    expect {
      rules   = ["session_change_cancels_stale_work_and_reloads_settings", "status_says_the_active_force_limit"]
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 160000 tokens" }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle", resume = false, failures = 0 }
  }
}

run "lifecycle: 'Session replacement also cancels stale work.': the late summary of a dropped checkpoint is not the result of a newer one" {
  # Checkpoint 1 starts, the session is replaced, checkpoint 2 starts; the
  # summary of checkpoint 1 arrives late (the host's summary is
  # asynchronous). It fires no rule and changes nothing; checkpoint 2 is
  # still being written, and only its own summary_done ends it.
  event "tool" {
    name   = "self-compact"
    now_ms = 1000
  }
  event "turn_end" {
    tool_results = 1
    tokens       = 90000
    now_ms       = 2000
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 1 }]
      state   = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
    }
  }
  event "session_start" {
    reason = "new"
    now_ms = 3000
    expect {
      rules   = ["session_change_cancels_stale_work_and_reloads_settings", "status_says_the_active_force_limit"]
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 160000 tokens" }]
      state   = { phase = "idle", checkpoint_seq = 1, checkpoint_id = 0 }
    }
  }
  event "command" {
    name   = "autocompacter"
    idle   = true
    tokens = 20000
    now_ms = 4000
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 2 }, { effect = "reply" }]
      state   = { phase = "summarizing", checkpoint_seq = 2, checkpoint_id = 2 }
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 5000
    expect {
      rules   = []
      effects = []
      state   = { phase = "summarizing", resume = false, compacted = false, checkpoint_seq = 2, checkpoint_id = 2, cooldown_until = 0 }
    }
  }
  event "summary_done" {
    attempt = 2
    ok      = true
    now_ms  = 6000
    expect {
      rules   = ["checkpoint_saved_starts_new_cycle"]
      effects = []
    }
  }
  expect {
    state = { phase = "idle", resume = false, compacted = true, checkpoint_seq = 2, checkpoint_id = 0, cooldown_until = 16000 }
  }
  assert {
    condition     = "decisions[4].state == decisions[3].state"
    error_message = "the late summary_done of checkpoint 1 must leave the state unchanged"
  }
}

run "lifecycle: 'Session replacement also cancels stale work.': a late failure of a dropped checkpoint neither fails nor continues a newer one" {
  state = { phase = "summarizing", resume = true, checkpoint_seq = 1, checkpoint_id = 1 }
  event "session_tree" {}
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      effects = [{ effect = "checkpoint", continue = true, attempt = 2 }, { effect = "reply" }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    error   = "aborted"
    now_ms  = 5000
    expect {
      rules   = []
      effects = []
    }
  }
  event "summary_done" {
    attempt = 2
    ok      = false
    now_ms  = 6000
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error" }]
    }
  }
  expect {
    state = { phase = "idle", failures = 1, retry_at = 11000, checkpoint_seq = 2, checkpoint_id = 0 }
  }
  assert {
    condition     = "decisions[2].state == decisions[1].state"
    error_message = "the late summary_done of checkpoint 1 must leave the state unchanged"
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.' (/autocompacter after a checkpoint)" {
  event "command" {
    name = "autocompacter"
    idle = true
  }
  event "summary_done" {
    attempt = 1
    ok      = true
  }
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_at_compacted_boundary_is_a_duplicate"]
      effects = [{ effect = "reply", text = "The session already ends in a compaction; nothing new to checkpoint." }]
    }
  }
  event "request" {
    now_ms = 10000
  }
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 10000
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now"]
      effects = [{ effect = "checkpoint", continue = true }, { effect = "reply" }]
    }
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.' (the host's own compaction)" {
  event "compact_done" {
    reason = "threshold"
    expect {
      rules   = ["host_compaction_marks_boundary_compacted"]
      effects = []
    }
  }
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_at_compacted_boundary_is_a_duplicate"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { compacted = true, phase = "idle" }
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.' (Pi's threshold compaction while a checkpoint is written); /compact and overflow recovery stay Pi's" {
  state = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "before_compact" {
    reason = "threshold"
    tokens = 190000
    expect {
      rules   = ["threshold_compaction_at_checkpointed_boundary_cancelled"]
      effects = [{ effect = "cancel_compaction", text = "Compaction skipped: a checkpoint already covers this point of the session." }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
  }
  # the user's /compact [instructions] is Pi's own compaction
  event "before_compact" {
    reason = "manual"
    idle   = true
    expect {
      rules   = []
      effects = []
    }
  }
  event "request" {}
  # overflow recovery is Pi's: a summary of the whole overflowing context
  # would overflow the summariser too
  event "before_compact" {
    reason = "overflow"
    tokens = 210000
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.' (a stored request)" {
  state = { request = "tool", compacted = true }
  event "turn_end" {
    tokens = 170000
    expect {
      rules   = ["existing_compaction_satisfies_request"]
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle" }
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.' (no forced checkpoint either)" {
  state = { compacted = true, noticed = true, warned = true }
  event "turn_end" {
    tokens = 170000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { phase = "idle" }
  }
}

run "lifecycle: 'One checkpoint at a time': /autocompacter while one is written" {
  state = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_while_checkpoint_running"]
      effects = [{ effect = "reply", text = "A checkpoint is already being written." }]
    }
  }
  expect {
    state = { phase = "summarizing", request = "none" }
  }
}

run "lifecycle: 'Notice and warning messages start a model turn.'" {
  event "turn_end" {
    tokens = 110000
    idle   = true
    expect {
      effects = [{ effect = "inject", message = "notice", deliver = "turn" }]
    }
  }
  event "turn_end" {
    tokens = 140000
    idle   = true
    expect {
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
}

run "lifecycle: 'The extension sends each level once per cycle. This rule prevents a notice loop.'" {
  event "turn_end" {
    tokens = 106666
    expect {
      rules = ["notice_once_per_cycle"]
    }
  }
  event "turn_end" {
    tokens = 107000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 131000
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
  event "turn_end" {
    tokens = 132000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { noticed = true, warned = true }
  }
}

run "lifecycle: 'each level once per cycle': the levels come back after a checkpoint" {
  state = { noticed = true, warned = true, phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = true
  }
  event "request" {}
  event "turn_end" {
    tokens = 131000
    now_ms = 60000
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
}

run "lifecycle: 'each level once per cycle': the warning covers the notice of its cycle" {
  event "turn_end" {
    tokens = 140000
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
  event "turn_end" {
    tokens = 140000
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: 'each level once per cycle': the host's own compaction starts a new cycle" {
  state = { noticed = true, warned = true }
  event "compact_done" {
    reason = "threshold"
  }
  event "request" {}
  event "turn_end" {
    tokens = 110000
    expect {
      rules   = ["notice_once_per_cycle"]
      effects = [{ effect = "inject", message = "notice", deliver = "turn" }]
    }
  }
}

run "lifecycle: 'Notice and warning messages start a model turn.': not while a requested checkpoint waits" {
  state = { request = "tool", cooldown_until = 50000 }
  event "turn_end" {
    tokens = 140000
    now_ms = 40000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "tool", noticed = false, warned = false }
  }
}

run "lifecycle: 'Notice and warning messages start a model turn.': not while a checkpoint is being written" {
  state = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "turn_end" {
    tokens = 140000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { noticed = false, warned = false }
  }
}

run "lifecycle: 'Force creates a checkpoint instead of a notice.'" {
  event "turn_end" {
    tokens = 165000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = false }]
    }
  }
  expect {
    state = { noticed = false, warned = false, phase = "summarizing" }
  }
}

run "lifecycle: no level below the notice" {
  event "turn_end" {
    tokens = 106665
    expect {
      rules   = []
      effects = []
    }
  }
}

run "lifecycle: nothing automatic while the policy is switched off" {
  event "turn_end" {
    tokens  = 190000
    enabled = false
    expect {
      rules   = []
      effects = []
    }
  }
}

# ============================================================ Automatic force

run "force: 'The extension checks estimated token use at each completed turn. It compacts at the active force limit.'" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 159999
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 160000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint" }]
    }
  }
}

run "force: 'at each completed turn': not at an aborted or failed one" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    outcome = "aborted"
    tokens  = 170000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    outcome = "error"
    error   = "overflow"
    tokens  = 170000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    synthetic_abort = true
    tokens          = 170000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { phase = "idle" }
  }
}

run "force: 'A turn with tool results ... continues after compaction.'" {
  event "turn_end" {
    tokens       = 170000
    tool_results = 1
    expect {
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  expect {
    state = { resume = true }
  }
}

run "force: 'A turn with ... pending messages continues after compaction.'" {
  event "turn_end" {
    tokens = 170000
    queued = true
    expect {
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  expect {
    state = { resume = true }
  }
}

run "force: 'A completed response without pending work does not create an extra model turn.'" {
  event "turn_end" {
    tokens = 170000
    expect {
      effects = [{ effect = "checkpoint", continue = false }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    expect {
      effects = []
    }
  }
  expect {
    state = { resume = false, phase = "idle" }
  }
}

run "force: 'The extension waits 10 seconds after a checkpoint.'" {
  state = { noticed = true, warned = true, phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 10000
  }
  event "request" {
    now_ms = 11000
  }
  # inside the cooldown the force waits; the new cycle's warning goes out
  event "turn_end" {
    tokens = 170000
    now_ms = 19999
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
  event "turn_end" {
    tokens = 170000
    now_ms = 20000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint" }]
    }
  }
}

run "force: 'This cooldown prevents repeated requests without new work.' (self-compact inside the cooldown is answered and dropped)" {
  state = { cooldown_until = 20000 }
  event "tool" {
    name   = "self-compact"
    now_ms = 12000
    expect {
      rules   = ["self_compact_inside_cooldown_dropped"]
      effects = [{ effect = "reply", text = "No checkpoint: one was saved moments ago and there is no new work to save, so this request was dropped. (cooldown: 8 s left)" }]
    }
  }
  # nothing is stored: no checkpoint at the end of a later, unrelated turn
  event "turn_end" {
    now_ms = 21000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle" }
  }
}

run "force: 'This cooldown prevents repeated requests without new work.' (/autocompacter inside the cooldown is answered and dropped, idle or streaming)" {
  state = { cooldown_until = 20000 }
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 15500
    expect {
      rules   = ["autocompacter_inside_cooldown_dropped"]
      effects = [{ effect = "reply", text = "No checkpoint: one was saved moments ago and there is no new work to save, so this request was dropped. (cooldown: 5 s left)" }]
    }
  }
  event "command" {
    name   = "autocompacter"
    now_ms = 19001
    expect {
      rules   = ["autocompacter_inside_cooldown_dropped"]
      effects = [{ effect = "reply", text = "No checkpoint: one was saved moments ago and there is no new work to save, so this request was dropped. (cooldown: 1 s left)" }]
    }
  }
  event "turn_end" {
    now_ms = 25000
    expect {
      rules   = []
      effects = []
    }
  }
  # after the cooldown the request is taken as before
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 25000
    expect {
      rules   = ["autocompacter_when_idle_checkpoints_now"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 1 }, { effect = "reply" }]
    }
  }
}

# Seed 002: "This cooldown prevents repeated requests without new work." A
# checkpoint whose resumed turn read a file (a completed turn with tool
# results) has new work to save: the cooldown ends, the request is taken,
# and the turn boundary checkpoints.
run "cooldown: 'This cooldown prevents repeated requests without new work.' — a turn with tool results since the checkpoint lifts it" {
  state = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 10000
    expect {
      state = { cooldown_until = 20000 }
    }
  }
  event "request" {
    tokens = 3000
    now_ms = 10100
    expect {
      rules = ["new_request_moves_boundary"]
    }
  }
  event "turn_end" {
    tokens       = 15000
    tool_results = 1
    now_ms       = 10500
    expect {
      rules   = ["turn_with_tool_results_is_new_work"]
      effects = []
      state   = { cooldown_until = 0 }
    }
  }
  event "tool" {
    name   = "self-compact"
    tokens = 15000
    now_ms = 11000
    expect {
      rules   = ["self_compact_stores_request"]
      effects = [{ effect = "reply", text = "Checkpoint requested: it is taken when this turn and its tool calls finish, and you resume from the summary." }]
      state   = { request = "tool", cooldown_until = 0 }
    }
  }
  event "turn_end" {
    tokens       = 15100
    tool_results = 1
    now_ms       = 11200
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 2 }]
    }
  }
  event "summary_done" {
    attempt = 2
    ok      = true
    now_ms  = 12000
  }
  expect {
    state = { cooldown_until = 22000 }
  }
}

run "cooldown: 'without new work' — a user prompt after the checkpoint lifts it; the resumed turn's own request does not" {
  state = { cooldown_until = 20000, compacted = true }
  event "request" {
    now_ms = 10100
    expect {
      rules = ["new_request_moves_boundary"]
    }
  }
  event "command" {
    name   = "autocompacter"
    now_ms = 10500
    expect {
      rules = ["autocompacter_inside_cooldown_dropped"]
    }
  }
  event "request" {
    user_input = true
    now_ms     = 10550
    expect {
      rules = ["user_prompt_after_checkpoint_is_new_work"]
    }
  }
  event "command" {
    name   = "autocompacter"
    now_ms = 10600
    expect {
      rules   = ["autocompacter_while_streaming_stores_request"]
      effects = [{ effect = "reply", text = "Checkpoint requested: it is taken when the current turn and its tool calls finish." }]
      state   = { request = "command", cooldown_until = 0 }
    }
  }
  event "turn_end" {
    tokens = 7200
    now_ms = 10700
    expect {
      rules = ["requested_checkpoint_after_turn_and_tool_calls"]
    }
  }
}

run "cooldown: 'without new work' — idle, new work lets /autocompacter checkpoint inside the cooldown" {
  state = { cooldown_until = 20000 }
  event "request" {
    user_input = true
    now_ms     = 11000
    expect {
      rules = ["user_prompt_after_checkpoint_is_new_work"]
    }
  }
  event "turn_end" {
    now_ms = 11500
  }
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 12000
    expect {
      rules = ["autocompacter_when_idle_checkpoints_now"]
    }
  }
}

run "cooldown: 'without new work' — a turn without tool results, or a failed one, is no new work; after the cooldown nothing is marked" {
  state = { cooldown_until = 20000 }
  event "request" {
    user_input = true
    now_ms     = 20000
    expect {
      rules = []
    }
  }
  event "turn_end" {
    now_ms = 12000
    expect {
      rules = []
    }
  }
  event "turn_end" {
    outcome      = "error"
    error        = "other"
    tool_results = 1
    now_ms       = 12500
    expect {
      rules = []
    }
  }
  event "turn_end" {
    tool_results = 1
    now_ms       = 20000
    expect {
      rules = []
    }
  }
  expect {
    state = { cooldown_until = 20000 }
  }
}

run "force: 'waits 10 seconds' is the cooldown_ms param" {
  params = { cooldown_ms = 2000 }
  state  = { noticed = true, warned = true, phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 10000
  }
  event "request" {}
  event "turn_end" {
    tokens = 170000
    now_ms = 12000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

# ============================================================ Errors

run "errors: 'A summary error leaves the session context unchanged. The extension adds a visible error message.'" {
  state = { phase = "summarizing", resume = false, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). The next automatic attempt waits 5 s: it runs at the first turn end after that." }]
    }
  }
  expect {
    state = { phase = "idle", compacted = false, failures = 1 }
  }
}

run "errors: 'Requested work ... can continue from the original context.'" {
  event "tool" {
    name = "self-compact"
  }
  event "turn_end" {
    expect {
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    error   = "timeout"
    expect {
      rules   = ["summary_error_schedules_retry_delay", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error" }, { effect = "continue" }]
    }
  }
  expect {
    state = { request = "none", phase = "idle", resume = false }
  }
}

run "errors: 'turns with pending work can continue from the original context.'" {
  event "turn_end" {
    tokens       = 170000
    tool_results = 2
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      rules   = ["summary_error_schedules_retry_delay", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error" }, { effect = "continue" }]
    }
  }
}

run "errors: 'Requested work and turns with pending work can continue': a turn without pending work stays stopped" {
  event "turn_end" {
    tokens = 170000
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      rules   = ["summary_error_schedules_retry_delay"]
      effects = [{ effect = "notify", level = "error" }]
    }
  }
}

run "errors: 'Requested work ... can continue from the original context.': the notice says the request was dropped, not retried" {
  event "tool" {
    name   = "self-compact"
    now_ms = 1000
  }
  event "turn_end" {
    tool_results = 1
    now_ms       = 2000
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    error   = "timeout"
    now_ms  = 3000
    expect {
      rules   = ["summary_error_schedules_retry_delay", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (timeout) The run continues from the original context. The next automatic attempt waits 5 s: it runs at the first turn end after that." }, { effect = "continue" }]
    }
  }
  # the request is not retried at the next boundary
  event "turn_end" {
    now_ms = 9000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", failures = 1, retry_at = 8000 }
  }
}

run "errors: 'Retry delays are 5, 10, and 20 seconds.': the notice of a forced checkpoint says how long the next automatic attempt waits" {
  state = { failures = 1, noticed = true, warned = true }
  event "turn_end" {
    tokens       = 170000
    tool_results = 1
    now_ms       = 1000
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 2000
    expect {
      rules   = ["summary_error_schedules_retry_delay", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). The run continues from the original context. The next automatic attempt waits 10 s: it runs at the first turn end after that." }, { effect = "continue" }]
    }
  }
}

run "errors: 'Three failures pause automatic attempts.': the notice of a failed request says the request was dropped and attempts are paused until /autocompacter" {
  state = { failures = 2 }
  event "command" {
    name = "autocompacter"
    idle = true
  }
  # /autocompacter cleared the failures; two more fail and the third pauses
  event "summary_done" {
    attempt = 1
    ok      = false
  }
  event "tool" {
    name   = "self-compact"
    now_ms = 10000
  }
  event "turn_end" {
    now_ms = 10001
  }
  event "summary_done" {
    attempt = 2
    ok      = false
    now_ms  = 10002
  }
  event "tool" {
    name   = "self-compact"
    now_ms = 30000
  }
  event "turn_end" {
    now_ms = 30001
    expect {
      rules = ["requested_checkpoint_after_turn_and_tool_calls"]
    }
  }
  event "summary_done" {
    attempt = 3
    ok      = false
    error   = "overloaded"
    now_ms  = 30002
    expect {
      rules   = ["summary_error_pauses_after_failure_limit", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (overloaded) The run continues from the original context. Automatic checkpoints are paused until you run /autocompacter, which clears the failures and tries again." }, { effect = "continue" }]
    }
  }
}

run "errors: 'Retry delays' in the notice: a delay of 0 waits for nothing but the next turn end" {
  params = { retry_delays_ms = [0] }
  event "turn_end" {
    tokens = 170000
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). The next automatic attempt can run at the next turn end." }]
    }
  }
}

run "errors: 'A summary error leaves the session context unchanged.': an aborted summary is no summary error (no failure, no notice, no continuation)" {
  event "tool" {
    name = "self-compact"
  }
  event "turn_end" {
    tool_results = 1
  }
  event "summary_done" {
    attempt = 1
    ok      = false
    aborted = true
    error   = "Request was aborted"
    expect {
      rules   = ["aborted_summary_drops_checkpoint"]
      effects = []
    }
  }
  expect {
    state = { phase = "idle", checkpoint_id = 0, failures = 0, retry_at = 0, resume = false, compacted = false }
  }
}

run "lifecycle: 'An existing compaction at the same boundary prevents a duplicate.': Pi's 'Already compacted' is already compact (no failure, no continuation)" {
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 1000
    expect {
      rules = ["autocompacter_when_idle_checkpoints_now"]
    }
  }
  event "summary_done" {
    attempt         = 1
    ok              = false
    already_compact = true
    error           = "Already compacted"
    now_ms          = 1100
    expect {
      rules   = ["nothing_to_compact_is_already_compact"]
      effects = [{ effect = "notify", level = "info", text = "Already compact: the session already ends in a compaction, so there is nothing new to checkpoint. Nothing was checkpointed and nothing counts as a failure." }]
    }
  }
  # nothing new since: the next /autocompacter answers at once
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 1200
    expect {
      rules   = ["autocompacter_at_compacted_boundary_is_a_duplicate"]
      effects = [{ effect = "reply", text = "The session already ends in a compaction; nothing new to checkpoint." }]
    }
  }
  expect {
    state = { phase = "idle", checkpoint_id = 0, failures = 0, retry_at = 0, cooldown_until = 0, resume = false, compacted = true }
  }
}

# Seed 002: "the user runs /autocompacter ... The extension summarizes the
# complete context preview ... adds a self-retaining Pi compaction entry."
# Pi's compact() finds nothing to cut in a small context or one long turn;
# the seed's checkpoint keeps nothing verbatim and is taken at the end of
# one short turn instead.
run "lifecycle: 'the user runs /autocompacter': Pi's 'Nothing to compact' checkpoints after one short turn (no failure, no 'already compact')" {
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 1000
    expect {
      rules = ["autocompacter_when_idle_checkpoints_now"]
    }
  }
  event "summary_done" {
    attempt         = 1
    ok              = false
    already_compact = true
    error           = "Nothing to compact (session too small)"
    now_ms          = 1100
    expect {
      rules = ["nothing_to_cut_checkpoints_after_one_turn"]
      effects = [
        { effect = "notify", level = "info", text = "Pi's own compaction found nothing it could cut here (the context is within what it keeps verbatim, or is one long turn), so the checkpoint is taken at the end of one short model turn instead; the agent then resumes from the summary." },
        { effect = "inject", message = "checkpoint_turn", deliver = "turn" },
      ]
      state = { phase = "idle", request = "command", failures = 0, retry_at = 0, compacted = false }
    }
  }
  event "request" {
    now_ms = 1200
  }
  event "turn_end" {
    now_ms = 1300
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true, attempt = 2 }]
    }
  }
  event "summary_done" {
    attempt = 2
    ok      = true
    now_ms  = 1400
    expect {
      rules = ["checkpoint_saved_starts_new_cycle"]
    }
  }
  expect {
    state = { phase = "idle", request = "none", failures = 0, compacted = true }
  }
}

# "/autocompacter clears the failure state and tries again": after a failed
# forced checkpoint of one long turn, the retry is the checkpoint too.
run "failures: '/autocompacter clears the failure state and tries again' — on one long turn Pi cannot cut, the try is the checkpoint after one short turn" {
  state = { failures = 3, retry_at = 50000 }
  event "command" {
    name   = "autocompacter"
    idle   = true
    now_ms = 10000
    expect {
      rules = ["autocompacter_when_idle_checkpoints_now", "autocompacter_clears_failure_state"]
    }
  }
  event "summary_done" {
    attempt         = 1
    ok              = false
    already_compact = true
    error           = "Nothing to compact (session too small)"
    now_ms          = 10100
    expect {
      rules = ["nothing_to_cut_checkpoints_after_one_turn"]
    }
  }
  event "turn_end" {
    now_ms = 10300
    expect {
      rules = ["requested_checkpoint_after_turn_and_tool_calls"]
    }
  }
}

run "lifecycle: 'Session replacement also cancels stale work.': a session_shutdown drops the checkpoint in flight; its late success changes nothing" {
  event "tool" {
    name = "self-compact"
  }
  event "turn_end" {
    tool_results = 1
  }
  event "session_shutdown" {
    reason = "quit"
    expect {
      rules   = ["session_shutdown_cancels_stale_work"]
      effects = []
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 5000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle", checkpoint_id = 0, compacted = false, cooldown_until = 0, resume = false }
  }
}

run "lifecycle: 'Session replacement also cancels stale work.': after a session_shutdown a late failure shows nothing and continues nothing" {
  state = { request = "command" }
  event "turn_end" {
    tokens       = 170000
    tool_results = 1
  }
  event "session_shutdown" {
    reason = "new"
  }
  event "summary_done" {
    ok    = false
    error = "late"
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { request = "none", phase = "idle", failures = 0, retry_at = 0 }
  }
}

run "summary: a summary_done without an attempt (0) answers the checkpoint in flight (success)" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 170000
    now_ms = 1000
  }
  event "summary_done" {
    ok     = true
    now_ms = 2000
    expect {
      rules   = ["checkpoint_saved_starts_new_cycle"]
      effects = []
    }
  }
  # not wedged: the next cycle's levels and the host's own compaction work again
  event "request" {
    now_ms = 13000
  }
  event "turn_end" {
    tokens = 170000
    now_ms = 13000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "summary: a summary_done without an attempt (0) answers the checkpoint in flight (failure)" {
  event "tool" {
    name = "self-compact"
  }
  event "turn_end" {}
  event "summary_done" {
    ok = false
    expect {
      rules   = ["summary_error_schedules_retry_delay", "failed_summary_continues_pending_work"]
      effects = [{ effect = "notify", level = "error" }, { effect = "continue" }]
    }
  }
  expect {
    state = { phase = "idle", checkpoint_id = 0, failures = 1 }
  }
}

run "errors: 'Retry delays are 5, 10, and 20 seconds.' (1st failure: 5 s)" {
  state = { phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
  }
  expect {
    state = { failures = 1, retry_at = 105000 }
  }
}

run "errors: 'Retry delays are 5, 10, and 20 seconds.' (2nd failure: 10 s)" {
  state = { phase = "summarizing", failures = 1, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
  }
  expect {
    state = { failures = 2, retry_at = 110000 }
  }
}

run "errors: 'Retry delays are 5, 10, and 20 seconds.' (3rd failure: 20 s)" {
  params = { failure_limit = 4 }
  state  = { phase = "summarizing", failures = 2, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
    expect {
      rules = ["summary_error_schedules_retry_delay"]
    }
  }
  expect {
    state = { failures = 3, retry_at = 120000 }
  }
}

run "errors: 'Retry delays are 5, 10, and 20 seconds.': the last delay repeats" {
  params = { failure_limit = 10 }
  state  = { phase = "summarizing", failures = 5, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
  }
  expect {
    state = { failures = 6, retry_at = 120000 }
  }
}

run "errors: 'Retry delays' are the retry_delays_ms param" {
  params = { retry_delays_ms = [1000, 3000] }
  state  = { phase = "summarizing", failures = 1, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
  }
  expect {
    state = { failures = 2, retry_at = 103000 }
  }
}

run "errors: 'The delay applies when a later turn reaches its boundary.'" {
  state = { noticed = true, warned = true, failures = 1, retry_at = 50000 }
  event "turn_end" {
    tokens = 170000
    now_ms = 49999
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    tokens = 170000
    now_ms = 50000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint" }]
    }
  }
}

run "errors: 'The delay applies when a later turn reaches its boundary.' (a requested checkpoint waits too)" {
  state = { failures = 1, retry_at = 50000, request = "tool" }
  event "turn_end" {
    now_ms = 49000
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    now_ms = 51000
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
}

run "errors: 'The extension does not run a background timer.'" {
  state = { noticed = true, warned = true, failures = 1, retry_at = 50000 }
  event "request" {
    tokens = 170000
    now_ms = 60000
    expect {
      effects = []
    }
  }
  event "agent_end" {
    tokens = 170000
    now_ms = 61000
    expect {
      effects = []
    }
  }
  event "settled" {
    tokens = 170000
    idle   = true
    now_ms = 62000
    expect {
      rules   = []
      effects = []
    }
  }
  expect {
    state = { phase = "idle" }
  }
}

run "errors: 'Three failures pause automatic attempts.'" {
  state = { phase = "summarizing", failures = 2, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    now_ms  = 100000
    expect {
      rules   = ["summary_error_pauses_after_failure_limit"]
      effects = [{ effect = "notify", level = "error", text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). Automatic checkpoints are paused until you run /autocompacter, which clears the failures and tries again." }]
    }
  }
  # paused: far past every delay, above the force limit, only the warning
  event "turn_end" {
    tokens = 190000
    now_ms = 10000000
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
  expect {
    state = { failures = 3, phase = "idle", retry_at = 120000 }
  }
}

run "errors: 'Three failures' is the failure_limit param" {
  params = { failure_limit = 2 }
  state  = { phase = "summarizing", failures = 1, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = false
    expect {
      rules = ["summary_error_pauses_after_failure_limit"]
    }
  }
  expect {
    state = { failures = 2 }
  }
}

run "errors: 'Three failures pause automatic attempts.': a requested checkpoint still runs after its delay" {
  state = { failures = 3, retry_at = 50000, noticed = true, warned = true }
  event "tool" {
    name = "self-compact"
    expect {
      rules = ["self_compact_stores_request"]
    }
  }
  event "turn_end" {
    tokens = 170000
    now_ms = 60000
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
}

run "errors: '/autocompacter clears the failure state and tries again.'" {
  state = { failures = 3, retry_at = 500000 }
  event "command" {
    name   = "autocompacter"
    idle   = false
    now_ms = 100000
    expect {
      rules   = ["autocompacter_while_streaming_stores_request", "autocompacter_clears_failure_state"]
      effects = [{ effect = "reply" }]
    }
  }
  event "turn_end" {
    now_ms = 101000
    expect {
      rules   = ["requested_checkpoint_after_turn_and_tool_calls"]
      effects = [{ effect = "checkpoint", continue = true }]
    }
  }
  event "summary_done" {
    attempt = 1
    ok      = false
  }
  expect {
    state = { failures = 1 }
  }
}

run "errors: '/autocompacter clears the failure state': automatic attempts resume" {
  state = { failures = 3, retry_at = 500000, noticed = true, warned = true, compacted = true }
  event "command" {
    name = "autocompacter"
    idle = true
    expect {
      rules   = ["autocompacter_at_compacted_boundary_is_a_duplicate", "autocompacter_clears_failure_state"]
      effects = [{ effect = "reply" }]
    }
  }
  event "request" {}
  event "turn_end" {
    tokens = 170000
    now_ms = 1000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint" }]
    }
  }
}

run "errors: a saved checkpoint ends the failure run" {
  state = { phase = "summarizing", failures = 2, retry_at = 30000, checkpoint_seq = 1, checkpoint_id = 1 }
  event "summary_done" {
    attempt = 1
    ok      = true
    now_ms  = 40000
  }
  expect {
    state = { failures = 0, retry_at = 0, cooldown_until = 50000 }
  }
}

# ============================================================ Settings and models

run "settings: 'The extension reads settings from the current project at session start.'" {
  state = { notice_set = 50000, warning_set = 80000, force_set = 100000, request = "command", compacted = true }
  event "session_start" {
    reason = "startup"
    expect {
      rules   = ["session_change_cancels_stale_work_and_reloads_settings", "status_says_the_active_force_limit"]
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 100000 tokens" }]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 0, force_set = 0, request = "none", phase = "idle", compacted = false }
  }
}

run "settings: 'A session tree change reloads them.'" {
  state = { notice_set = 50000, warning_set = 80000, force_set = 100000, request = "tool", phase = "summarizing", checkpoint_seq = 1, checkpoint_id = 1 }
  event "session_tree" {
    expect {
      rules   = ["session_change_cancels_stale_work_and_reloads_settings", "status_says_the_active_force_limit"]
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 100000 tokens" }]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 0, force_set = 0, request = "none", phase = "idle", checkpoint_seq = 1, checkpoint_id = 0 }
  }
}

run "settings: 'A model change resets threshold notices.'" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 140000
    expect {
      rules   = []
      effects = []
    }
  }
  event "model_select" {
    model = "other-model"
    expect {
      rules   = ["model_change_resets_threshold_notices", "status_says_the_active_force_limit"]
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 160000 tokens" }]
    }
  }
  event "turn_end" {
    tokens = 140000
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
}

run "settings: 'The active force limit is the smallest of these values: The saved force limit.'" {
  params = { notice_limit = 60000, warning_limit = 90000, force_limit = 120000 }
  state  = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 119999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 120000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: 'The active force limit is the smallest of these values: 270,000 tokens.'" {
  params = { force_limit = 300000 }
  state  = { noticed = true, warned = true }
  event "turn_end" {
    context_window = 1000000
    tokens         = 269999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 1000000
    tokens         = 270000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: '270,000 tokens' is the force_cap param" {
  params = { force_cap = 150000 }
  state  = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 149999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 150000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: 'The active force limit is the smallest of these values: 80% of the model context window.'" {
  state = { noticed = true, warned = true }
  event "turn_end" {
    context_window = 100000
    tokens         = 79999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 100000
    tokens         = 80000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: '80% of the model context window' is the force_ratio param" {
  params = { force_ratio = 0.5 }
  state  = { noticed = true, warned = true }
  event "turn_end" {
    tokens = 99999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 100000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: 'Notice and warning scale by the same ratio as force.' (notice)" {
  event "turn_end" {
    context_window = 100000
    tokens         = 53332
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 100000
    tokens         = 53333
    expect {
      rules   = ["notice_once_per_cycle"]
      effects = [{ effect = "inject", message = "notice", deliver = "turn" }]
    }
  }
}

run "settings: 'Notice and warning scale by the same ratio as force.' (warning)" {
  state = { noticed = true }
  event "turn_end" {
    context_window = 100000
    tokens         = 65184
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 100000
    tokens         = 65185
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
}

run "settings: 'Notice and warning scale by the same ratio as force.' (ratio 1 below the cap)" {
  state = { noticed = true }
  event "turn_end" {
    context_window = 400000
    tokens         = 219999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 400000
    tokens         = 220000
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
}

run "settings: 'The three active values stay distinct.' (notice clamped below warning)" {
  # force 8000 (80% of 10000), ratio 0.08: warning int(1001 * 0.08) = 80 and
  # notice int(1000 * 0.08) = 80 would coincide; notice is held at 79. A
  # 1000-token reserve keeps the host's threshold (9000) above the force.
  params = { notice_limit = 1000, warning_limit = 1001, force_limit = 100000 }
  event "turn_end" {
    context_window = 10000
    reserve        = 1000
    tokens         = 78
    expect {
      effects = []
    }
  }
  event "turn_end" {
    context_window = 10000
    reserve        = 1000
    tokens         = 79
    expect {
      rules   = ["notice_once_per_cycle"]
      effects = [{ effect = "inject", message = "notice", deliver = "turn" }]
    }
  }
  event "turn_end" {
    context_window = 10000
    reserve        = 1000
    tokens         = 80
    expect {
      rules   = ["warning_once_per_cycle"]
      effects = [{ effect = "inject", message = "warning", deliver = "turn" }]
    }
  }
  event "turn_end" {
    context_window = 10000
    reserve        = 1000
    tokens         = 8000
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint" }]
    }
  }
}

# ============================================================ Nonterminal use: set and reset

run "nonterminal: 'use the set ... command form' (set notice)" {
  event "command" {
    name = "autocompacter"
    args = "set notice 100000"
    expect {
      rules = ["set_notice_limit"]
      effects = [
        { effect = "save_param", name = "notice_limit", value = 100000 },
        { effect = "reply", text = "Saved. notice_limit = 100000" },
      ]
    }
  }
  # active notice int(100000 * 160000 / 270000) = 59259
  event "turn_end" {
    tokens = 59258
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 59259
    expect {
      rules = ["notice_once_per_cycle"]
    }
  }
  expect {
    state = { notice_set = 100000, warning_set = 0, force_set = 0 }
  }
}

run "nonterminal: 'use the set ... command form' (set warning, set force)" {
  event "command" {
    name = "autocompacter"
    args = "set notice 50000"
    expect {
      rules = ["set_notice_limit"]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set warning 80000"
    expect {
      rules   = ["set_warning_limit"]
      effects = [{ effect = "save_param", name = "warning_limit", value = 80000 }, { effect = "reply", text = "Saved. warning_limit = 80000" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "  set   force  100000 "
    expect {
      rules   = ["set_force_limit"]
      effects = [{ effect = "save_param", name = "force_limit", value = 100000 }, { effect = "reply", text = "Saved. force_limit = 100000" }, { effect = "status", text = "autocompacter: checkpoint at 100000 tokens" }]
    }
  }
  event "turn_end" {
    tokens = 79999
    expect {
      rules = ["notice_once_per_cycle"]
    }
  }
  event "turn_end" {
    tokens = 80000
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
  event "turn_end" {
    tokens = 99999
    expect {
      effects = []
    }
  }
  event "turn_end" {
    tokens = 100000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
  expect {
    state = { notice_set = 50000, warning_set = 80000, force_set = 100000 }
  }
}

run "nonterminal: set rejects a value that is not a whole number of tokens" {
  event "command" {
    name = "autocompacter"
    args = "set force lots"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply", text = "Not saved: a limit is a whole number of tokens above 0, and notice < warning < force must hold. Saved now: notice 180000, warning 220000, force 270000." }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set notice 1e5"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set notice -5"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set notice 0"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set force 1234567890"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 0, force_set = 0, request = "none", phase = "idle" }
  }
}

run "nonterminal: set rejects a value that breaks notice < warning < force" {
  event "command" {
    name = "autocompacter"
    args = "set notice 220000"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set warning 180000"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set warning 270000"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set force 220000"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set warning 219999"
    expect {
      rules = ["set_warning_limit"]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set notice 219999"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply", text = "Not saved: a limit is a whole number of tokens above 0, and notice < warning < force must hold. Saved now: notice 180000, warning 219999, force 270000." }]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 219999, force_set = 0 }
  }
}

run "nonterminal: 'use the ... reset command form'" {
  state = { notice_set = 50000, warning_set = 80000, force_set = 100000 }
  event "command" {
    name = "autocompacter"
    args = "reset"
    expect {
      rules = ["reset_saved_limits"]
      effects = [
        { effect = "clear_param", name = "notice_limit" },
        { effect = "clear_param", name = "warning_limit" },
        { effect = "clear_param", name = "force_limit" },
        { effect = "reply", text = "Saved limits removed: the default notice, warning and force limits apply from the next settings reload (session start or tree change)." },
        { effect = "status", text = "autocompacter: checkpoint at 160000 tokens" },
      ]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 0, force_set = 0 }
  }
}

run "nonterminal: any other form gets the usage and changes nothing" {
  state = { failures = 2, retry_at = 9000 }
  event "command" {
    name = "autocompacter"
    args = "set speed 5"
    expect {
      rules   = ["autocompacter_usage_for_unknown_form"]
      effects = [{ effect = "reply", text = "Usage: /autocompacter (checkpoint now), /autocompacter setup (asks for the limits), /autocompacter set notice|warning|force TOKENS, /autocompacter set NOTICE WARNING FORCE, /autocompacter reset." }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set notice"
    expect {
      rules   = ["autocompacter_usage_for_unknown_form"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "reset all"
    expect {
      rules   = ["autocompacter_usage_for_unknown_form"]
      effects = [{ effect = "reply" }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "now please"
    idle = true
    expect {
      rules   = ["autocompacter_usage_for_unknown_form"]
      effects = [{ effect = "reply" }]
    }
  }
  expect {
    state = { failures = 2, retry_at = 9000, request = "none", phase = "idle", notice_set = 0, warning_set = 0, force_set = 0 }
  }
}

run "nonterminal: 'The command with empty args is the checkpoint request' (blank args too)" {
  event "command" {
    name = "autocompacter"
    args = "   "
    idle = true
    expect {
      rules = ["autocompacter_when_idle_checkpoints_now"]
    }
  }
}

run "nonterminal: another command is not the policy's" {
  event "command" {
    name = "compact"
    args = "set notice 5"
    expect {
      rules   = []
      effects = []
    }
  }
}

run "nonterminal: 'The setup wizard needs a dialog-capable UI.' (with one, it asks for the three limits)" {
  state = { warning_set = 200000 }
  event "command" {
    name   = "autocompacter"
    args   = "setup"
    dialog = true
    expect {
      rules = ["setup_asks_for_limits_in_a_dialog"]
      effects = [
        { effect = "ask", title = "Notice limit (tokens): a notice asks the agent to checkpoint soon", value = "180000", command = "set" },
        { effect = "ask", title = "Warning limit (tokens): a warning asks the agent to checkpoint now", value = "200000", command = "set" },
        { effect = "ask", title = "Force limit (tokens): a checkpoint is taken without asking", value = "270000", command = "set" },
      ]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 200000, force_set = 0 }
  }
}

run "nonterminal: 'In other modes, use the set or reset command form.' (setup without a dialog explains them)" {
  event "command" {
    name = "autocompacter"
    args = "setup"
    expect {
      rules   = ["setup_without_dialog_explains_set_and_reset"]
      effects = [{ effect = "reply", text = "The setup wizard needs a dialog-capable UI (Pi's terminal or RPC mode). Here, use /autocompacter set notice|warning|force TOKENS, /autocompacter set NOTICE WARNING FORCE, or /autocompacter reset (the default limits). Saved now: notice 180000, warning 220000, force 270000." }]
    }
  }
}

run "nonterminal: 'use the set ... command form' (set NOTICE WARNING FORCE, the wizard's answers, moves all three at once)" {
  event "command" {
    name = "autocompacter"
    args = "set 300000 350000 400000"
    expect {
      rules = ["set_all_limits"]
      effects = [
        { effect = "save_param", name = "notice_limit", value = 300000 },
        { effect = "save_param", name = "warning_limit", value = 350000 },
        { effect = "save_param", name = "force_limit", value = 400000 },
        { effect = "reply", text = "Saved. notice_limit = 300000, warning_limit = 350000, force_limit = 400000" },
        { effect = "status", text = "autocompacter: checkpoint at 160000 tokens" },
      ]
    }
  }
  expect {
    state = { notice_set = 300000, warning_set = 350000, force_set = 400000 }
  }
}

run "nonterminal: set NOTICE WARNING FORCE rejects limits out of order or not whole numbers above 0" {
  event "command" {
    name = "autocompacter"
    args = "set 300000 200000 400000"
    expect {
      rules   = ["set_limit_rejected"]
      effects = [{ effect = "reply", text = "Not saved: a limit is a whole number of tokens above 0, and notice < warning < force must hold. Saved now: notice 180000, warning 220000, force 270000." }]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set 0 1 2"
    expect {
      rules = ["set_limit_rejected"]
    }
  }
  event "command" {
    name = "autocompacter"
    args = "set 1 2 x"
    expect {
      rules = ["set_limit_rejected"]
    }
  }
  expect {
    state = { notice_set = 0, warning_set = 0, force_set = 0 }
  }
}

# ============================================================ beside Pi's own compaction
# Seed 002: "The active force limit is the smallest of these values" —
# nothing else lowers it. Pi's threshold compaction (window - reserve) below
# the force limit is cancelled; at or above it the seed's checkpoint answers
# it while an automatic attempt is allowed, and Pi's own runs while it is
# not; overflow recovery and the user's /compact are Pi's (the policy
# comment and docs/pi.md's seed-reading notes).

run "force: 'The active force limit is the smallest of these values' — in a 64k window it is 80% (51200), not Pi's threshold (64000 - 16384); the status line says so" {
  event "session_start" {
    reason         = "startup"
    context_window = 64000
    expect {
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 51200 tokens" }]
    }
  }
  event "request" {
    context_window = 64000
  }
  event "turn_end" {
    context_window = 64000
    tokens         = 49894
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
  # Pi's threshold compaction below the force limit is cancelled: the
  # policy owns the thresholds
  event "before_compact" {
    reason         = "threshold"
    context_window = 64000
    tokens         = 49894
    expect {
      rules   = ["threshold_compaction_below_force_limit_cancelled"]
      effects = [{ effect = "cancel_compaction" }]
    }
  }
  event "request" {
    context_window = 64000
  }
  event "turn_end" {
    context_window = 64000
    tokens         = 51199
    expect {
      rules   = []
      effects = []
    }
  }
  event "turn_end" {
    context_window = 64000
    tokens         = 51200
    expect {
      rules   = ["force_checkpoint_at_active_limit"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 1 }]
    }
  }
}

run "force: 'The active force limit is the smallest of these values' — 32k and 1M windows: 80% of 32000, and the 270000 cap" {
  event "model_select" {
    context_window = 32000
    expect {
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 25600 tokens" }]
    }
  }
  event "model_select" {
    context_window = 1000000
    expect {
      effects = [{ effect = "status", text = "autocompacter: checkpoint at 270000 tokens" }]
    }
  }
  event "turn_end" {
    context_window = 32000
    tokens         = 25599
    expect {
      rules = ["warning_once_per_cycle"]
    }
  }
  event "turn_end" {
    context_window = 32000
    tokens         = 25600
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "settings: the status line follows a saved force limit at once ('The active force limit is the smallest of these values')" {
  event "command" {
    name           = "autocompacter"
    args           = "set force 230000"
    context_window = 64000
    expect {
      rules   = ["set_force_limit"]
      effects = [{ effect = "save_param" }, { effect = "reply" }, { effect = "status", text = "autocompacter: checkpoint at 51200 tokens" }]
    }
  }
  event "command" {
    name           = "autocompacter"
    args           = "set 10000 20000 30000"
    context_window = 64000
    expect {
      rules   = ["set_all_limits"]
      effects = [{ effect = "save_param" }, { effect = "save_param" }, { effect = "save_param" }, { effect = "reply" }, { effect = "status", text = "autocompacter: checkpoint at 30000 tokens" }]
    }
  }
  event "turn_end" {
    context_window = 64000
    tokens         = 30000
    expect {
      rules = ["force_checkpoint_at_active_limit"]
    }
  }
}

run "boundary: 'It compacts at the active force limit.' — Pi's threshold compaction at or above it, while an automatic attempt is allowed, is answered with the seed's self-retaining checkpoint" {
  state = { checkpoint_seq = 4 }
  event "before_compact" {
    reason = "threshold"
    tokens = 183617
    now_ms = 12100
    expect {
      rules   = ["threshold_compaction_at_force_limit_writes_the_checkpoint"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 5 }]
      state   = { phase = "summarizing", checkpoint_id = 5, resume = false }
    }
  }
  event "summary_done" {
    attempt = 5
    ok      = true
    now_ms  = 13000
    expect {
      rules   = ["checkpoint_saved_starts_new_cycle"]
      effects = []
    }
  }
  event "compact_done" {
    reason = "threshold"
    expect {
      rules = ["host_compaction_marks_boundary_compacted"]
    }
  }
  expect {
    state = { phase = "idle", failures = 0, compacted = true, cooldown_until = 23000 }
  }
}

run "boundary: 'Three failures pause automatic attempts.' — while paused, Pi's threshold compaction runs as the safety net and the user is told which ran and why" {
  state = { failures = 3, retry_at = 1000, checkpoint_seq = 3 }
  event "before_compact" {
    reason = "threshold"
    tokens = 183617
    now_ms = 50000
    expect {
      rules   = ["threshold_compaction_while_held_back_is_pis"]
      effects = [{ effect = "notify", level = "info", text = "Pi's own compaction runs here, not the autocompacter checkpoint: automatic checkpoints are paused after repeated summary failures (/autocompacter clears them)." }]
      state   = { phase = "idle", checkpoint_id = 0 }
    }
  }
}

run "boundary: 'Retry delays are 5, 10, and 20 seconds.' — before the retry time, Pi's threshold compaction runs as the safety net and the user is told which ran and why" {
  state = { failures = 1, retry_at = 20000, checkpoint_seq = 1 }
  event "before_compact" {
    reason = "threshold"
    tokens = 183617
    now_ms = 19999
    expect {
      rules   = ["threshold_compaction_while_held_back_is_pis"]
      effects = [{ effect = "notify", level = "info", text = "Pi's own compaction runs here, not the autocompacter checkpoint: the last checkpoint failed and its retry delay has not passed yet." }]
    }
  }
  event "before_compact" {
    reason = "threshold"
    tokens = 183617
    now_ms = 20000
    expect {
      rules   = ["threshold_compaction_at_force_limit_writes_the_checkpoint"]
      effects = [{ effect = "checkpoint", continue = false, attempt = 2 }]
    }
  }
}

run "boundary: Pi's compaction is its own while the policy is off; the user's /compact [instructions] is Pi's while it is on" {
  event "before_compact" {
    reason  = "threshold"
    tokens  = 183617
    enabled = false
    expect {
      rules = []
    }
  }
  event "before_compact" {
    reason = "manual"
    tokens = 183617
    expect {
      rules   = []
      effects = []
    }
  }
}
