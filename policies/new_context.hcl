# new_context: resets happen inside compaction.
#
# The agent ends its own window with the `new_context` tool. The reset is the
# answer to the host's compaction hook: whenever the host compacts (the user's
# /compact, its automatic threshold compaction, overflow recovery, or an
# explicit request), `before_compact` gets a retain-none reset boundary
# instead of a summary. An explicit request compacts at `settled` through one
# identified attempt; its completion callback is the scheduling boundary for
# the continuation.
#
# Slots:
#   request      none | pending: an explicit `new_context` request
#   attempt      none | running | confirmed: the outstanding compaction
#                attempt (confirmed once its `compact_done` arrived)
#   attempt_id   the number of the outstanding attempt (0: none)
#   attempt_seq  the last attempt number handed out; it only grows, so a
#                callback of an older attempt never matches a newer one
#   warned_window the window that already got the checkpoint warning
#   warning_draft the window whose warning is in the request on its way,
#                 not yet delivered (a completed turn delivers it)
#   overflow     idle | unanswered: a request overflowed and no compaction
#                hook has run since
#
# Groups, one concern each:
#   request     the `new_context` tool
#   compaction  the host's compaction hook and agent_end (instant reset)
#   attempt     the explicit attempt: start, confirm, complete, error,
#               invalidation
#   warning     the once-per-window checkpoint warning
#   uncompactable the warning when Pi finds nothing to compact

policy "new_context" {
  description = "The agent ends its window with new_context; every host compaction becomes a retain-none reset, explicit requests compact at settle through identified attempts."
  # Every reset of this design happens inside the host's own compaction
  # (before_compact answered with provide_reset). A host whose plugins cannot
  # answer a compaction (opencode) would run it without its resets at all, so
  # the policy runs on Pi only and says so at load elsewhere.
  hosts = ["pi"]
}

# ---------------------------------------------------------------- params

param "warning_runway" {
  type        = number
  default     = 12288
  description = "Tokens of runway above the host's reserve at which the checkpoint warning is added to the request, once per window: it goes out when remaining (context window minus tokens) is at or below reserve + warning_runway."
  validation {
    condition     = "value >= 0 && value == float(int(value))"
    error_message = "warning_runway must be a whole number of tokens, 0 or more."
  }
}

# ---------------------------------------------------------------- state

slot "request" {
  values      = ["none", "pending"]
  initial     = "none"
  description = "none: no explicit request; pending: new_context was called and the reset has not happened yet."
}

slot "attempt" {
  values      = ["none", "running", "confirmed"]
  initial     = "none"
  description = "none: no attempt outstanding; running: compact was requested for attempt_id; confirmed: its compact_done arrived, the reset boundary is in the session."
}

slot "attempt_id" {
  type        = int
  initial     = 0
  description = "The identity of the outstanding attempt; 0 when there is none. Callbacks carrying another number are rejected."
}

slot "attempt_seq" {
  type        = int
  initial     = 0
  description = "The last attempt number handed out. It is never reset, so every attempt of the session has its own number."
}

# "once per window": a durable slot, persisted on the session branch and
# restored from it on reopen, fork and tree navigation.
slot "warned_window" {
  type        = string
  initial     = ""
  durable     = true
  description = "The window whose checkpoint warning went out; it is not repeated in that window."
}

# The warning goes into a request, and it is delivered only when the turn
# of that request completes: a request that fails (Pi retries a 503 with the
# same context) or is aborted has not delivered it, and the latch above is
# set only on delivery.
slot "warning_draft" {
  type        = string
  initial     = ""
  description = "The window whose checkpoint warning is in the request on its way; it becomes warned_window when that turn completes, and is dropped when it fails or is aborted."
}

# "Pi also determines compaction eligibility before the extension hook; an
# uncompactable session produces a warning and waits for a new prompt."
# The host reports no such fact: Pi's overflow recovery finds nothing to
# compact (a history since the last reset that is one message too large for
# the window, say after a switch to a model with a smaller one) before any
# hook runs. What the policy sees is a request that overflowed and no
# compaction hook before the run settles.
slot "overflow" {
  values      = ["idle", "unanswered"]
  initial     = "idle"
  description = "idle: nothing pending; unanswered: a request overflowed and no compaction hook (before_compact, compact_failed) has run since, so the host found nothing to compact."
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

# "once per window at reserve+12288 tokens remaining"
derived "warning_at" {
  value = "event.reserve + param.warning_runway"
}

derived "warning_due" {
  value = "remaining <= warning_at"
}

# ---------------------------------------------------------------- surface

tool "new_context" {
  description = <<-EOT
    End this context window and continue in a fresh one. Call it when the
    current task has reached a good stopping point, or when the context is
    nearly full: make sure what you need to carry on is written down first
    (task, decisions, files touched, next step). The window is reset once this
    run settles, and you continue in the fresh window. The session history
    itself is kept. Calling it again before the reset changes nothing.
  EOT
}

message "checkpoint_warning" {
  kind = warning
  text = <<-EOT
    Context checkpoint: this context window is nearly full. Write down what
    you need to carry on (the task and its goal, decisions made, files
    touched, open questions and the exact next step), then call `new_context`
    to continue in a fresh window. If you keep working instead, the window is
    reset automatically when it fills up, without a further warning.
  EOT
}

message "continuation" {
  text = <<-EOT
    Continue the task in this fresh context window: read your notes, then pick
    up at the next step they record.
  EOT
}

message "new_context_ack" {
  text = "New context requested: this window is reset when the run settles, and you continue in a fresh window. Stop here."
}

message "new_context_already_pending" {
  text = "A new context is already pending for this window; it happens when the run settles. Stop here."
}

message "new_context_off" {
  text = "new_context is switched off in this session; nothing was reset."
}

message "reset_failed" {
  text = "The new context could not be started; the session history is unchanged. Call new_context again or run /compact to retry."
}

message "uncompactable" {
  text = "The context window is full and there is nothing to compact: the history since the last reset does not fit this model's window (Pi found nothing it could cut), so nothing was reset. Switch to a model with a larger window, or go back with /tree or start over with /new, then send a new prompt."
}

# ---------------------------------------------------------------- the tool

group "request" {
  # Seed decision: a switched-off policy does not take requests (toggle off
  # invalidates everything; a request made while off would never run).
  rule "new_context_refused_while_disabled" {
    on   = "tool"
    when = "event.name == 'new_context' && !event.enabled"
    effect "reply" {
      text      = "message.new_context_off"
      terminate = true
    }
  }

  # Row `new_context`: "repeated calls report already pending. Tool returns
  # terminal output."
  rule "new_context_repeat_reports_already_pending" {
    on   = "tool"
    from = { request = "pending" }
    when = "event.name == 'new_context'"
    effect "reply" {
      text      = "message.new_context_already_pending"
      terminate = true
    }
  }

  # Row `new_context`: "Mark explicit request ... Tool returns terminal
  # output." (`terminate` ends the tool-followup path.)
  rule "new_context_marks_explicit_request" {
    on   = "tool"
    from = { request = "none" }
    when = "event.name == 'new_context'"
    to   = { request = "pending" }
    effect "reply" {
      text      = "message.new_context_ack"
      terminate = true
    }
  }
}

# ---------------------------------------------------------------- the compaction hook

group "compaction" {
  # Row "Manual, threshold or overflow session_before_compact, idle or
  # streaming": "an aborted signal returns { cancel: true }."
  rule "compaction_aborted_signal_cancels" {
    on   = "before_compact"
    when = "event.enabled && event.signal_aborted"
    effect "cancel_compaction" {}
  }

  # Row "Manual, threshold or overflow session_before_compact, idle or
  # streaming": "Build the reset boundary immediately and return it. Never
  # cancel and never take a model turn." Any reason, idle or streaming: the
  # guard reads neither `reason` nor `idle`. Switched off, the host's own
  # summary compaction runs untouched (no rule fires).
  rule "compaction_returns_reset_boundary_at_once" {
    kind = reset
    on   = "before_compact"
    when = "event.enabled"
    effect "provide_reset" {}
  }

  # Row `agent_end`: "No-op for an instant reset." An automatic compaction is
  # already the reset and resumes through the host's own caller, so nothing
  # is scheduled here.
  rule "agent_end_is_a_no_op_for_instant_reset" {
    on = "agent_end"
  }
}

# ---------------------------------------------------------------- the explicit attempt

# Every callback rule reads `event.attempt == state.attempt_id` from a
# running or confirmed attempt: "Identity checks reject callbacks from older
# attempts." A callback of another attempt fires no rule and has no effect.
group "attempt" {
  # Seed 001 lists abort nowhere as a reason to reset: a user abort ends the
  # explicit work, so a request left pending by an aborted run is dropped at
  # its settlement instead of starting a compaction the user just stopped.
  rule "aborted_run_drops_explicit_request" {
    on   = "settled"
    from = { request = "pending", attempt = "none" }
    when = "event.aborted"
    to   = { request = "none" }
  }

  # Row `agent_settled`: "If idle and an explicit request is pending, create
  # one identified attempt and request ctx.compact." One at a time: only
  # from `attempt = none`. The new number is attempt_seq + 1.
  rule "settled_starts_one_identified_attempt" {
    on   = "settled"
    from = { request = "pending", attempt = "none" }
    when = "event.idle && event.enabled"
    to   = { attempt = "running" }
    set = {
      attempt_seq = "state.attempt_seq + 1"
      attempt_id  = "state.attempt_seq + 1"
    }
    effect "compact" {
      attempt = "state.attempt_seq + 1"
    }
  }

  # Row "Matching session_compact": "Confirm boundary, persist window state.
  # Native compaction retains its own scheduling." Only the compact_done of
  # the outstanding attempt confirms; a native one (another number, or 0)
  # matches no rule.
  rule "matching_compact_done_confirms_boundary" {
    on   = "compact_done"
    from = { attempt = "running" }
    when = "event.attempt == state.attempt_id"
    to   = { attempt = "confirmed" }
  }

  # "After it, the model either ends the window itself with new_context or
  # rides into Pi's automatic compaction, which resets on the spot with no
  # turn." A host compaction that is not the outstanding attempt (threshold,
  # overflow or the user's /compact) was answered with a reset boundary by
  # this policy: the window is already fresh, so the pending request is
  # consumed and settlement starts no second attempt and sends no
  # continuation ("an automatic compaction is already the reset and resumes
  # through Pi's own caller").
  rule "native_reset_satisfies_pending_request" {
    on   = "compact_done"
    from = { request = "pending", attempt = "none" }
    when = "event.enabled"
    to   = { request = "none" }
  }

  # Row "Attempt onComplete": "Consume attempt; send continuation only for a
  # confirmed boundary when idle with no queued messages."
  rule "attempt_complete_continues_confirmed_boundary" {
    on   = "attempt_complete"
    from = { attempt = "confirmed" }
    when = "event.attempt == state.attempt_id && event.idle && !event.queued"
    to   = { attempt = "none", request = "none" }
    set  = { attempt_id = "0" }
    effect "continue" {}
  }

  # Row "Attempt onComplete": "Consume attempt" — without a confirmed
  # boundary, while streaming or with queued messages, no continuation.
  rule "attempt_complete_consumes_without_continuation" {
    on   = "attempt_complete"
    from = { attempt = ["running", "confirmed"] }
    when = "event.attempt == state.attempt_id"
    to   = { attempt = "none", request = "none" }
    set  = { attempt_id = "0" }
  }

  # Row "Attempt onError or synchronous throw": "Clear attempt/request, warn,
  # retain history. No automatic retry loop." Nothing touches the session and
  # the request is gone, so the next settle starts nothing.
  rule "attempt_error_clears_and_warns_without_retry" {
    on   = "attempt_error"
    from = { attempt = ["running", "confirmed"] }
    when = "event.attempt == state.attempt_id"
    to   = { attempt = "none", request = "none" }
    set  = { attempt_id = "0" }
    effect "notify" {
      level = "warning"
      text  = "event.error == '' ? message.reset_failed : message.reset_failed + ' (' + event.error + ')'"
    }
  }

  # Row "Shutdown / start / tree / toggle off": "Invalidate outstanding
  # attempt. Identity checks reject callbacks from older attempts."
  # attempt_id goes back to 0 while attempt_seq keeps its value, so no later
  # callback of the invalidated attempt matches. A pending request belongs to
  # the session it was made in and is dropped too.
  rule "session_change_invalidates_attempt" {
    on  = ["session_shutdown", "session_start", "session_tree"]
    to  = { attempt = "none", request = "none" }
    set = { attempt_id = "0" }
  }

  # Row "Shutdown / start / tree / toggle off" (toggle off).
  rule "toggle_off_invalidates_attempt" {
    on   = "toggle"
    when = "!event.on"
    to   = { attempt = "none", request = "none" }
    set  = { attempt_id = "0" }
  }
}

# ---------------------------------------------------------------- the checkpoint warning

group "warning" {
  # "The final checkpoint warning is steered earlier from the context hook
  # (warning.ts) once per window at reserve+12288 tokens remaining."
  # The context hook is the `request` event; what it can do is change the
  # request being sent, so the warning is delivered into this request
  # (deliver = "request"): a steer would only arrive after the response.
  # Not while an explicit request is pending: the model already asked for
  # the fresh window. "Once per window" is once as the model receives it:
  # the latch is set when the turn completes (below), so every request of
  # the window carries the warning until one of them is answered.
  rule "checkpoint_warning_once_per_window" {
    on   = "request"
    from = { request = "none" }
    when = "event.enabled && warning_due && state.warned_window != event.window_id"
    set  = { warning_draft = "event.window_id" }
    effect "inject" {
      message = "checkpoint_warning"
      deliver = "request"
    }
  }

  # "once per window": the model answered the request that carried the
  # warning, which the host made durable with the turn. A synthetic abort
  # (an assistant message stopped as aborted) delivered nothing.
  rule "checkpoint_warning_delivered_at_completed_turn" {
    on   = "turn_end"
    when = "state.warning_draft != '' && state.warning_draft == event.window_id && event.outcome == 'completed' && !event.synthetic_abort"
    set = {
      warned_window = "state.warning_draft"
      warning_draft = "''"
    }
  }

  # A failed request (a 503 Pi retries, another error) or an aborted one
  # did not deliver the warning: the latch stays open, and Pi's retry or the
  # next prompt carries the warning again. So does a turn of another window.
  rule "checkpoint_warning_not_delivered_by_failed_turn" {
    on   = "turn_end"
    when = "state.warning_draft != ''"
    set  = { warning_draft = "''" }
  }

  # A session change or the switch drops a warning still on its way.
  rule "checkpoint_warning_draft_dropped_on_transition" {
    on   = ["session_start", "session_tree", "session_shutdown", "toggle"]
    when = "state.warning_draft != ''"
    set  = { warning_draft = "''" }
  }
}

# ---------------------------------------------------------------- the uncompactable session

group "uncompactable" {
  # A request overflowed: Pi's overflow recovery comes next, and asks the
  # compaction hook if it finds anything to compact.
  rule "overflow_waits_for_a_compaction_hook" {
    on   = "turn_end"
    when = "event.enabled && event.outcome == 'error' && event.error == 'overflow'"
    to   = { overflow = "unanswered" }
  }

  # A later turn that completed got past it.
  rule "completed_turn_ends_unanswered_overflow" {
    on   = "turn_end"
    from = { overflow = "unanswered" }
    when = "event.outcome == 'completed' && !event.synthetic_abort"
    to   = { overflow = "idle" }
  }

  # Pi found something to compact (the hook was asked, and resets), or
  # reported its own recovery failure.
  rule "compaction_hook_answers_overflow" {
    on   = ["before_compact", "compact_failed"]
    from = { overflow = "unanswered" }
    to   = { overflow = "idle" }
  }

  # "an uncompactable session produces a warning and waits for a new
  # prompt": the run settled with the overflow unanswered. Nothing is
  # reset and nothing is scheduled; the next prompt starts afresh.
  rule "uncompactable_session_warns_and_waits_for_a_prompt" {
    on   = "settled"
    from = { overflow = "unanswered" }
    when = "event.enabled && !event.aborted"
    to   = { overflow = "idle" }
    effect "notify" {
      level = "warning"
      text  = "message.uncompactable"
    }
  }

  # An aborted run, a session change or the switch drop it.
  rule "unanswered_overflow_dropped_on_transition" {
    on   = ["settled", "session_start", "session_tree", "session_shutdown", "toggle"]
    from = { overflow = "unanswered" }
    to   = { overflow = "idle" }
  }
}

# ============================================================ properties
# The seed's safety sentences, proved by `resetpolicy verify` over every
# state the policy can reach (and checked by `resetpolicy test --verify`).
# Each names the line of the seed (seeds/001, the reset lifecycle) it
# encodes. Every property of this policy is in this region.

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

# seed 001 line 10 "agent_settled | If idle and an explicit request is
# pending, create one identified attempt": a new attempt starts only when
# none is in flight.
# Stated over the compact effects and the callbacks echoing their attempt:
# from a compact until its completion or error (or the session change or
# switch that invalidates it), no second compact.
property "at most one attempt in flight" {
  never = "compact"
  after = { effect = "compact" }
  until = [
    { event = "attempt_complete", when = "event.attempt == scope.attempt" },
    { event = "attempt_error", when = "event.attempt == scope.attempt" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 10: the attempt is requested at agent_settled, when idle.
property "an attempt starts only at a settled, idle run" {
  never = "compact"
  when  = "!event.idle"
}

# seed 001 line 10 "If idle and an explicit request is pending, create one
# identified attempt and request ctx.compact".
property "a pending request starts its attempt when the run settles idle" {
  always_emits = "compact"
  on           = "settled"
  when         = "state.request == 'pending' && state.attempt == 'none' && event.idle && event.enabled && !event.aborted"
}

# seed 001 line 14 "Identity checks reject callbacks from older attempts."
# Stated over the attempt the compact effect carried, which the host
# echoes: while it is in flight, a completion carrying another attempt
# never continues.
property "a stale attempt never continues" {
  never = "continue"
  on    = "attempt_complete"
  when  = "event.attempt != scope.attempt"
  after = { effect = "compact" }
  until = [
    { event = "attempt_complete", when = "event.attempt == scope.attempt", inclusive = true },
    { event = "attempt_error", when = "event.attempt == scope.attempt" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 12 "send continuation only for a confirmed boundary when
# idle with no queued messages".
property "a continuation only when idle with nothing queued" {
  never = "continue"
  when  = "event.queued || !event.idle"
}

# Between compact and the compact_done that echoes its attempt the boundary
# is not confirmed: no completion continues.
property "a continuation only for a confirmed boundary" {
  never = "continue"
  on    = "attempt_complete"
  after = { effect = "compact" }
  until = [
    { event = "compact_done", when = "event.attempt == scope.attempt" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 13 "Attempt onError ... Clear attempt/request, warn, retain
# history. No automatic retry loop": no cycle of events keeps starting
# compactions unless the agent asks again.
property "no retry loop after an attempt error" {
  no_loop_of   = "compact"
  new_input_on = ["tool"]
}

# seed 001 line 8 "session_before_compact ... Build the reset boundary
# immediately and return it. Never cancel and never take a model turn; an
# aborted signal returns { cancel: true }".
property "every compaction gets the reset boundary at once" {
  always_emits = "provide_reset"
  on           = "before_compact"
  when         = "event.enabled && !event.signal_aborted"
}

property "a compaction is cancelled only for an aborted signal" {
  never = "cancel_compaction"
  on    = "before_compact"
  when  = "!event.signal_aborted"
}

property "a compaction never takes a model turn" {
  never = "continue"
  on    = "before_compact"
}

property "an aborted compaction signal is cancelled" {
  always_emits = "cancel_compaction"
  on           = "before_compact"
  when         = "event.enabled && event.signal_aborted"
}

# seed 001 line 16 "The final checkpoint warning is steered earlier ... once
# per window at reserve+12288 tokens remaining". Once per window as the
# model receives it: a request that fails or is aborted did not deliver it,
# so the next request carries it again; once a completed turn delivered it
# (warned_window), no request of that window carries it.
# Stated over the injects and the turns that delivered them, not over
# warned_window, so a policy that forgets its latch cannot hold it vacuously.
property "the checkpoint warning is not repeated once delivered in its window" {
  never = "inject"
  on    = "request"
  with  = { message = "checkpoint_warning" }
  after = {
    effect = "inject"
    with   = { message = "checkpoint_warning" }
    then = {
      event  = "turn_end"
      when   = "event.outcome == 'completed' && !event.synthetic_abort"
      unless = ["request", "session_start", "session_tree", "session_shutdown", "toggle"]
    }
  }
  within = "window"
}

# seed 001 line 16 "once per window at reserve+12288 tokens remaining": a
# request at that remaining budget, with no explicit request pending,
# carries the warning, in a window of any size, until a completed turn
# delivered it there (warned_window; the property above states the
# delivery from what the policy did). The threshold is the warning_runway
# param; its 12288 is the param's default.
property "the checkpoint warning goes out at the reserve plus the warning runway" {
  always_emits = "inject"
  with         = { message = "checkpoint_warning", deliver = "request" }
  on           = "request"
  when         = "event.enabled && state.request == 'none' && event.context_window - event.tokens <= event.reserve + param.warning_runway && state.warned_window != event.window_id"
}

# seed 001 line 7 "new_context | Mark explicit request; repeated calls
# report already pending. Tool returns terminal output."
property "the new_context tool returns terminal output" {
  always_emits = "reply"
  with         = { terminate = true }
  on           = "tool"
  when         = "event.name == 'new_context'"
}

# seed 001 line 18 "Pi also determines compaction eligibility before the
# extension hook; an uncompactable session produces a warning and waits for
# a new prompt": a run that settles with an overflow no compaction hook
# answered warns, and schedules nothing. Stated over the events: from an
# overflowed turn until a compaction hook, a completed turn, a session
# change or the switch; the settlement is inside and ends it.
property "an uncompactable overflow warns when the run settles" {
  always_emits = "notify"
  with         = { level = "warning" }
  on           = "settled"
  when         = "event.enabled && !event.aborted"
  after        = { event = "turn_end", when = "event.enabled && event.outcome == 'error' && event.error == 'overflow'" }
  until = [
    { event = "before_compact" },
    { event = "compact_failed" },
    { event = "turn_end", when = "event.outcome == 'completed' && !event.synthetic_abort" },
    { event = "settled", inclusive = true },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle" },
  ]
}

# seed 001 line 14 "Shutdown / start / tree / toggle off | Invalidate
# outstanding attempt. Identity checks reject callbacks from older
# attempts": from a session change or the switch turned off until the next
# compact, no completion continues, whatever attempt it carries. Stated
# over the events, so a policy that keeps the attempt in flight across a
# session change (a composed policy that disables the invalidating rule,
# which has no effect of its own) is caught.
property "an attempt invalidated by a session change or the switch never continues" {
  never = "continue"
  on    = "attempt_complete"
  after = [
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
  until = { effect = "compact" }
}

# seed 001 line 13 "Attempt onError or synchronous throw | Clear
# attempt/request, warn, retain history": the error of the attempt compact
# carried (the host echoes it) warns. The error itself is inside the
# scope (inclusive), and closes it: a repeated callback warns no more.
property "an attempt error warns" {
  always_emits = "notify"
  with         = { level = "warning" }
  on           = "attempt_error"
  when         = "event.attempt == scope.attempt"
  after        = { effect = "compact" }
  until = [
    { event = "attempt_error", when = "event.attempt == scope.attempt", inclusive = true },
    { event = "attempt_complete", when = "event.attempt == scope.attempt" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 10 "create one identified attempt and request ctx.compact";
# line 12 "Consume attempt; send continuation only for a confirmed boundary
# when idle with no queued messages"; line 14 "Identity checks reject
# callbacks from older attempts": the attempt the policy waits for is the
# one compact carried. Once the compact_done echoing it confirmed the
# boundary, its completion, idle with nothing queued, continues. (A
# compact_done of another compaction before it disarms the scope: then
# the sentence is not checked on that run.)
property "the attempt in flight is the one compact carried" {
  always_emits = "continue"
  on           = "attempt_complete"
  when         = "event.attempt == scope.attempt && event.idle && !event.queued"
  after = {
    effect = "compact"
    then = {
      event  = "compact_done"
      when   = "event.attempt == scope.attempt"
      unless = ["attempt_complete", "attempt_error", "session_start", "session_tree", "session_shutdown", "toggle"]
    }
  }
  until = [
    { event = "attempt_complete", when = "event.attempt == scope.attempt", inclusive = true },
    { event = "attempt_error", when = "event.attempt == scope.attempt" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 18 "The completion callback is the scheduling boundary:
# session_compact fires before Pi clears manual compaction state. Sending a
# prompt inside that hook is too early"; line 11 "Native compaction retains
# its own scheduling"; line 9 "agent_end | No-op for an instant reset".
property "no continuation from the compaction hook or agent_end" {
  never = "continue"
  on    = ["compact_done", "agent_end"]
}

# seed 001 line 12 "Attempt onComplete | Consume attempt": once the
# completion of the attempt compact carried arrived, nothing is pending
# any more, so the next new_context call is a new request, not "already
# pending" (which would leave the agent with no reset at all: the request
# and the attempt it still waits for never end). Stated over the compact
# effect and the callback echoing its attempt; the reply is the
# new_context_already_pending message's text.
property "a completed attempt is consumed" {
  never = "reply"
  on    = "tool"
  with  = { text = "A new context is already pending for this window; it happens when the run settles. Stop here." }
  after = {
    effect = "compact"
    then = {
      event  = "attempt_complete"
      when   = "event.attempt == scope.attempt"
      unless = ["attempt_error", "session_start", "session_tree", "session_shutdown", "toggle"]
    }
  }
  until = [
    { event = "tool", when = "event.name == 'new_context'", inclusive = true },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
}

# seed 001 line 16 "After it, the model either ends the window itself with
# new_context or rides into Pi's automatic compaction, which resets on the
# spot with no turn"; line 18 "an automatic compaction is already the
# reset and resumes through Pi's own caller": a host compaction (answered
# with the reset boundary) satisfies a request still pending. Line 10
# "agent_settled | If idle and an explicit request is pending, create one
# identified attempt": the seed names no abort among the reasons to reset,
# so a run the user aborted drops its request at its settlement. Line 14:
# a session change or the switch turned off drops it too. After any of
# them no attempt starts, there or later, until the agent asks again.
# Stated over the events, so a composed policy that disables a rule
# dropping the request (none has an effect of its own) is caught.
property "no attempt after the request was dropped until the agent asks again" {
  never = "compact"
  after = [
    { event = "compact_done", when = "event.enabled" },
    { event = "settled", when = "event.aborted" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
    { event = "toggle", when = "!event.on" },
  ]
  until = { event = "tool", when = "event.name == 'new_context'" }
}
