# autocompacter: summarising checkpoints.
#
# The agent calls `self-compact`, or the user runs `/autocompacter`, and at
# the end of the turn the host summarises the whole context and appends a
# self-retaining compaction (the `checkpoint` effect); the agent resumes from
# the summary. Automatically, each completed turn is measured against three
# levels: a notice and a warning (each once per cycle) and the force limit,
# where a checkpoint is taken without asking. Failed summaries leave the
# context alone; the next checkpoint waits a growing delay, and after
# failure_limit failures in a row the automatic force pauses.
#
# A cycle runs from one compaction to the next: a saved checkpoint or the
# host's own compaction starts a new one.
#
# The host reports the end of a checkpoint with `summary_done`; a checkpoint
# is written by the host itself, so it raises no `before_compact` or
# `compact_done` of its own (those come only from the host's native
# compaction). Every checkpoint is identified: the `checkpoint` effect carries
# an `attempt` number, the host echoes it in `summary_done`, and only the
# outstanding checkpoint's summary is taken (the host's summary is
# asynchronous, so an older one can arrive late, after a session change and
# a newer checkpoint).
#
# Slots:
#   request         none | tool | command: the one stored checkpoint request
#                   and who made it
#   phase           idle | summarizing: a checkpoint is being written
#   checkpoint_id   the number of the outstanding checkpoint (0: none)
#   checkpoint_seq  the last checkpoint number handed out; it only grows, so a
#                   summary_done of an older checkpoint never matches a newer
#                   one
#   resume          the checkpoint in flight wants the run to go on (it was
#                   requested, or its turn had pending work)
#   compacted       the session already ends in a compaction: nothing new was
#                   sent to the model since the last checkpoint or host
#                   compaction (see the boundary group)
#   noticed, warned the notice / warning of this cycle went out
#   failures        summary failures in a row
#   retry_at        no checkpoint at a turn boundary before this time (ms)
#   cooldown_until  no checkpoint at a turn boundary before this time (ms)
#   notice_set, warning_set, force_set
#                   limits saved with `/autocompacter set …` in this session
#                   (0: the param in force); see the settings group
#
# Groups, one concern each:
#   request     self-compact and `/autocompacter` without arguments (a
#               request inside the cooldown is answered and dropped)
#   checkpoint  the turn boundary: requested and forced checkpoints, notice
#               and warning
#   summary     the result of a checkpoint
#   resume      continuing after a failed summary
#   failures    `/autocompacter` clears the failure state
#   settings    `/autocompacter set …`, `reset` and `setup`
#   boundary    the host's own compaction at the same boundary
#   session     session replacement and shutdown, tree change, model
#               change
#
# What Pi does when the policy says nothing decides several readings of the
# seed; each is noted at its rule and in docs/pi.md's seed-reading notes,
# in the same words:
#   - the active force limit is the seed's min(saved, 270000, 80% of the
#     window), nothing else; the status line shows it;
#   - Pi's own compaction: threshold compaction below the force limit is
#     cancelled; at or above it the seed's checkpoint answers it only while
#     an automatic attempt is allowed (no retry delay pending, not paused),
#     else Pi's own runs and the user is told which ran and why; overflow
#     recovery and the user's /compact [instructions] are Pi's (the
#     boundary group);
#   - Pi's `compact()` refuses a context that is within its keep-recent
#     amount or one long turn ("Nothing to compact"), so the idle checkpoint
#     is taken at the end of one short turn instead, and a session that ends
#     in a compaction is already compact, no failure;
#   - Pi tears a session down by aborting first, so an aborted summary
#     (`aborted`) is dropped without a failure, a notice or a continuation;
#   - a request inside the cooldown would otherwise wait, stored, for the
#     end of some later unrelated prompt and add a model turn there, so it
#     is dropped when it is made; new work ends the cooldown, and an aborted
#     or failed turn drops a stored request;
#   - a failed summary continues only runnable work (tool results, queued
#     messages).

policy "autocompacter" {
  description = "Summarising checkpoints with self-compact and /autocompacter; notice, warning and force levels, force limit = min(saved, 270000, 80% of the window), 10 s cooldown, retries after 5/10/20 s, pause after 3 failures."
}

# ---------------------------------------------------------------- params

param "notice_limit" {
  type        = number
  default     = 180000
  description = "Saved notice limit (tokens). Scaled by the same ratio as the force limit; at the active value a notice asks the agent to checkpoint soon, once per cycle."
  validation {
    condition     = "value > 0 && value == float(int(value))"
    error_message = "notice_limit must be a whole number of tokens above 0."
  }
  validation {
    condition     = "value < param.warning_limit"
    error_message = "notice_limit must be below warning_limit."
  }
}

param "warning_limit" {
  type        = number
  default     = 220000
  description = "Saved warning limit (tokens). Scaled by the same ratio as the force limit; at the active value a warning asks the agent to checkpoint now, once per cycle."
  validation {
    condition     = "value > 0 && value == float(int(value))"
    error_message = "warning_limit must be a whole number of tokens above 0."
  }
  validation {
    condition     = "value < param.force_limit"
    error_message = "warning_limit must be below force_limit."
  }
}

param "force_limit" {
  type        = number
  default     = 270000
  description = "Saved force limit (tokens). The active force limit is the smallest of this, force_cap and force_ratio times the model's context window; a completed turn at or above it is checkpointed without asking."
  validation {
    condition     = "value > 0 && value == float(int(value))"
    error_message = "force_limit must be a whole number of tokens above 0."
  }
}

param "force_cap" {
  type        = number
  default     = 270000
  description = "Upper bound of the active force limit (tokens), whatever the saved limit and the window."
  validation {
    condition     = "value > 0 && value == float(int(value))"
    error_message = "force_cap must be a whole number of tokens above 0."
  }
}

param "force_ratio" {
  type        = number
  default     = 0.8
  description = "Share of the model's context window the active force limit may reach (0.8: 80%)."
  validation {
    condition     = "value > 0 && value <= 1"
    error_message = "force_ratio must be above 0 and at most 1."
  }
}

param "cooldown_ms" {
  type        = number
  default     = 10000
  description = "Milliseconds after a saved checkpoint during which no further checkpoint is taken at a turn boundary."
  validation {
    condition     = "value >= 0 && value == float(int(value))"
    error_message = "cooldown_ms must be a whole number of milliseconds, 0 or more."
  }
}

param "retry_delays_ms" {
  type        = list(number)
  default     = [5000, 10000, 20000]
  description = "Milliseconds to wait after the 1st, 2nd, 3rd … summary failure in a row before the next checkpoint at a turn boundary (requested or forced); the last entry repeats. The wait is checked when a later turn reaches its boundary (there is no timer)."
  validation {
    condition     = "len(value) >= 1 && value[0] >= 0"
    error_message = "retry_delays_ms must list at least one delay, in milliseconds, 0 or more."
  }
}

param "failure_limit" {
  type        = number
  default     = 3
  description = "Summary failures in a row that pause automatic checkpoints until /autocompacter clears them."
  validation {
    condition     = "value >= 1 && value == float(int(value))"
    error_message = "failure_limit must be a whole number, 1 or more."
  }
}

# ---------------------------------------------------------------- state

slot "request" {
  values      = ["none", "tool", "command"]
  initial     = "none"
  description = "The stored checkpoint request: none, tool (self-compact) or command (/autocompacter while a turn runs)."
}

slot "phase" {
  values      = ["idle", "summarizing"]
  initial     = "idle"
  description = "summarizing: a checkpoint was started and its summary_done has not arrived."
}

slot "checkpoint_id" {
  type        = int
  initial     = 0
  description = "The identity of the outstanding checkpoint; 0 when there is none. A summary_done carrying another attempt is rejected."
}

slot "checkpoint_seq" {
  type        = int
  initial     = 0
  description = "The last checkpoint number handed out. It is never reset, so every checkpoint of the session has its own number."
}

slot "resume" {
  type        = bool
  initial     = false
  description = "The checkpoint in flight continues the run: it was requested, or its turn had tool results or pending messages."
}

slot "compacted" {
  type        = bool
  initial     = false
  description = "The session already ends in a compaction (a saved checkpoint or the host's own) and no request was sent since."
}

slot "noticed" {
  type        = bool
  initial     = false
  description = "The notice of this cycle went out."
}

slot "warned" {
  type        = bool
  initial     = false
  description = "The warning of this cycle went out."
}

slot "failures" {
  type        = int
  initial     = 0
  description = "Summary failures in a row."
}

slot "retry_at" {
  type        = time
  initial     = 0
  description = "Host time (ms) before which no checkpoint is taken at a turn boundary after a summary failure."
}

slot "cooldown_until" {
  type        = time
  initial     = 0
  description = "Host time (ms) before which no checkpoint is taken at a turn boundary."
}

slot "notice_set" {
  type        = int
  initial     = 0
  description = "Notice limit saved in this session with /autocompacter set notice; 0: the param in force."
}

slot "warning_set" {
  type        = int
  initial     = 0
  description = "Warning limit saved in this session with /autocompacter set warning; 0: the param in force."
}

slot "force_set" {
  type        = int
  initial     = 0
  description = "Force limit saved in this session with /autocompacter set force; 0: the param in force."
}

# ---------------------------------------------------------------- derived

# The saved limits: a value set in this session wins over the param in force
# (the host reloads the params from the project's settings at session start
# and tree change, when the session values are dropped).
derived "saved_notice" {
  value = "state.notice_set > 0 ? state.notice_set : int(param.notice_limit)"
}

derived "saved_warning" {
  value = "state.warning_set > 0 ? state.warning_set : int(param.warning_limit)"
}

derived "saved_force" {
  value = "state.force_set > 0 ? state.force_set : int(param.force_limit)"
}

# "The active force limit is the smallest of these values: The saved force
# limit. 270,000 tokens. 80% of the model context window." Nothing else
# lowers it: Pi's own threshold compaction (window - reserve, under 80% of
# every window below 81920 tokens) does not pre-empt it, because below the
# force limit that compaction is cancelled (the boundary group); the policy
# alone owns the thresholds, whatever Pi's settings.
derived "active_force" {
  value = "int(min(saved_force, param.force_cap, param.force_ratio * event.context_window))"
}

# "Notice and warning scale by the same ratio as force."
derived "force_scale" {
  value = "active_force / saved_force"
}

# "The three active values stay distinct." The saved values are strictly
# ordered: notice < warning < force (param validation, and the checks of
# `/autocompacter set`). Scaling by one ratio keeps the order, and
# warning < force survives rounding down: saved_warning * ratio is below
# saved_force * ratio, which is active_force, a whole number. Notice and
# warning can round down to the same whole number when the ratio is small;
# the min() holds the notice one token below the warning.
derived "active_warning" {
  value = "int(saved_warning * force_scale)"
}

derived "active_notice" {
  value = "min(int(saved_notice * force_scale), active_warning - 1)"
}

# "Three failures pause automatic attempts." Only the automatic force stops;
# a requested checkpoint still runs once the retry delay has passed (with the
# defaults: 5 s after the 1st failure, 10 s after the 2nd, 20 s after the 3rd
# and every later one), so each of the three delays has a use.
derived "paused" {
  value = "state.failures >= param.failure_limit"
}

# "The extension waits 10 seconds after a checkpoint."
derived "cooled_down" {
  value = "event.now_ms >= state.cooldown_until"
}

# "This cooldown prevents repeated requests without new work." The cooldown
# exists for that purpose only, so new work since the checkpoint ends it
# (the work group sets cooldown_until to 0): a completed turn with tool
# results (the resumed turn read a file, ran the tests), or a new user
# prompt after the checkpoint (the context grows with what the user
# brought). The policy's own tool replies are no work: the host counts
# tool_results without them, so a self-compact dropped in the cooldown
# does not lift it for the agent's next try. Token growth as such is not
# measured: the checkpoint's own size is known only at the next request,
# and a slot holding it would make every token count a state of its own for
# `verify`; the growth that is new work comes from tool results or the
# user, which are measured.
derived "cooldown_holds" {
  value = "!cooled_down"
}

# Whole seconds of cooldown left, rounded up, for the reply to a request
# made inside it.
derived "cooldown_left_s" {
  value = "max(0, int((state.cooldown_until - event.now_ms + 999) / 1000))"
}

# "Retry delays are 5, 10, and 20 seconds." The delay after the next
# failure: the n-th failure in a row waits retry_delays_ms[n-1], the last
# entry repeats.
derived "retry_delay_ms" {
  value = "int(param.retry_delays_ms[min(state.failures, len(param.retry_delays_ms) - 1)])"
}

# What a failure notice says of the next automatic attempt, so that it
# promises only what happens: it waits for the delay, at a later turn's
# boundary ("The extension does not run a background timer").
derived "retry_wait_text" {
  value = "retry_delay_ms == 0 ? ' The next automatic attempt can run at the next turn end.' : ' The next automatic attempt waits ' + (retry_delay_ms % 1000 == 0 ? string(retry_delay_ms / 1000) + ' s' : string(retry_delay_ms) + ' ms') + ': it runs at the first turn end after that.'"
}

# "The delay applies when a later turn reaches its boundary."
derived "retry_due" {
  value = "event.now_ms >= state.retry_at"
}

# ---------------------------------------------------------------- surface

tool "self-compact" {
  description = <<-EOT
    Checkpoint your context: when this turn and its tool calls finish, the
    whole conversation is summarised and you resume from the summary in the
    next turn. Use it at a natural break, or when asked to because the context
    is filling up. Make sure the work in progress is visible in the
    conversation (files, decisions, next step) so the summary can keep it.
  EOT
}

command "autocompacter" {
  description = "Checkpoint the context now (summarise and resume). `/autocompacter setup` asks for the limits; `/autocompacter set notice|warning|force TOKENS` or `set NOTICE WARNING FORCE` saves limits; `/autocompacter reset` restores the default limits."
}

message "notice" {
  kind = reminder
  text = <<-EOT
    Context notice: this conversation is getting long. At the next natural
    break, call `self-compact` to checkpoint it; you will resume from a
    summary.
  EOT
}

message "warning" {
  kind = warning
  text = <<-EOT
    Context warning: this conversation is close to its limit. Finish the step
    you are on and call `self-compact` now; a checkpoint is taken
    automatically if the context keeps growing.
  EOT
}

message "tool_requested" {
  text = "Checkpoint requested: it is taken when this turn and its tool calls finish, and you resume from the summary."
}

message "already_requested" {
  text = "A checkpoint is already requested; it is taken at the end of this turn."
}

message "command_started" {
  text = "Checkpoint started: the context is being summarised, and the agent resumes from the summary."
}

message "command_queued" {
  text = "Checkpoint requested: it is taken when the current turn and its tool calls finish."
}

message "checkpoint_running" {
  text = "A checkpoint is already being written."
}

message "already_compacted" {
  text = "The session already ends in a compaction; nothing new to checkpoint."
}

message "already_compact" {
  text = "Already compact: the session already ends in a compaction, so there is nothing new to checkpoint. Nothing was checkpointed and nothing counts as a failure."
}

message "nothing_to_cut" {
  text = "Pi's own compaction found nothing it could cut here (the context is within what it keeps verbatim, or is one long turn), so the checkpoint is taken at the end of one short model turn instead; the agent then resumes from the summary."
}

message "checkpoint_turn" {
  text = <<-EOT
    The user asked for a checkpoint of this conversation (/autocompacter).
    Reply with one short line saying where the work stands. When your reply
    ends, the whole conversation is summarised and you resume from the
    summary.
  EOT
}

message "cooldown_dropped" {
  text = "No checkpoint: one was saved moments ago and there is no new work to save, so this request was dropped."
}

message "request_dropped_turn" {
  text = "Checkpoint request dropped: the turn it waited for was aborted or failed. Run /autocompacter to checkpoint now."
}

message "pi_compaction_paused" {
  text = "Pi's own compaction runs here, not the autocompacter checkpoint: automatic checkpoints are paused after repeated summary failures (/autocompacter clears them)."
}

message "pi_compaction_retry_wait" {
  text = "Pi's own compaction runs here, not the autocompacter checkpoint: the last checkpoint failed and its retry delay has not passed yet."
}

message "duplicate_compaction" {
  text = "Compaction skipped: a checkpoint already covers this point of the session."
}

message "summary_failed" {
  text = "Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried)."
}

message "failed_continues" {
  text = " The run continues from the original context."
}

message "summary_failed_paused" {
  text = " Automatic checkpoints are paused until you run /autocompacter, which clears the failures and tries again."
}

message "limit_saved" {
  text = "Saved."
}

message "limits_reset" {
  text = "Saved limits removed: the default notice, warning and force limits apply from the next settings reload (session start or tree change)."
}

message "limit_rejected" {
  text = "Not saved: a limit is a whole number of tokens above 0, and notice < warning < force must hold."
}

message "usage" {
  text = "Usage: /autocompacter (checkpoint now), /autocompacter setup (asks for the limits), /autocompacter set notice|warning|force TOKENS, /autocompacter set NOTICE WARNING FORCE, /autocompacter reset."
}

message "setup_needs_dialog" {
  text = "The setup wizard needs a dialog-capable UI (Pi's terminal or RPC mode). Here, use /autocompacter set notice|warning|force TOKENS, /autocompacter set NOTICE WARNING FORCE, or /autocompacter reset (the default limits)."
}

message "setup_notice" {
  text = "Notice limit (tokens): a notice asks the agent to checkpoint soon"
}

message "setup_warning" {
  text = "Warning limit (tokens): a warning asks the agent to checkpoint now"
}

message "setup_force" {
  text = "Force limit (tokens): a checkpoint is taken without asking"
}

# ---------------------------------------------------------------- requests

group "request" {
  # "The extension stores one request. A second request does not replace
  # it."
  rule "self_compact_second_request_keeps_first" {
    on   = "tool"
    from = { request = ["tool", "command"] }
    when = "event.name == 'self-compact'"
    effect "reply" {
      text = "message.already_requested"
    }
  }

  # "The extension waits 10 seconds after a checkpoint. This cooldown
  # prevents repeated requests without new work." A request made inside the
  # cooldown with no new work since the checkpoint (see the
  # work group) has nothing new to save: it is answered and
  # dropped. Stored, it would wait for the first turn end after the
  # cooldown, which can be the end of a later, unrelated prompt, and add a
  # model turn there.
  rule "self_compact_inside_cooldown_dropped" {
    on   = "tool"
    from = { request = "none" }
    when = "event.name == 'self-compact' && cooldown_holds"
    effect "reply" {
      text = "message.cooldown_dropped + ' (cooldown: ' + string(cooldown_left_s) + ' s left)'"
    }
  }

  # "The agent calls self-compact ... The extension stores one request."
  # New work since the checkpoint has ended the cooldown (the work group),
  # so the turn boundary takes the request.
  rule "self_compact_stores_request" {
    on   = "tool"
    from = { request = "none" }
    when = "event.name == 'self-compact'"
    to   = { request = "tool" }
    effect "reply" {
      text = "message.tool_requested"
    }
  }

  # One checkpoint at a time: the one being written is the answer.
  rule "autocompacter_while_checkpoint_running" {
    on   = "command"
    from = { phase = "summarizing" }
    when = "event.name == 'autocompacter' && nfields(event.args) == 0"
    effect "reply" {
      text = "message.checkpoint_running"
    }
  }

  # "An existing compaction at the same boundary prevents a duplicate."
  # Idle, with nothing sent since the last compaction, the session already
  # ends in one.
  rule "autocompacter_at_compacted_boundary_is_a_duplicate" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 0 && event.idle && state.compacted"
    effect "reply" {
      text = "message.already_compacted"
    }
  }

  # "This cooldown prevents repeated requests without new work." The user's
  # request inside the cooldown with no new work is answered and dropped, as
  # the agent's is.
  rule "autocompacter_inside_cooldown_dropped" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 0 && cooldown_holds"
    effect "reply" {
      text = "message.cooldown_dropped + ' (cooldown: ' + string(cooldown_left_s) + ' s left)'"
    }
  }

  # "the user runs /autocompacter" ... "A requested checkpoint starts the
  # next model turn. The agent resumes from the summary." Idle, there is no
  # turn to wait for: the checkpoint is taken now (it also takes up a request
  # still stored from an earlier run). Nothing is pending while idle, so a
  # failed summary leaves the agent idle, as Pi's own /compact does ("Requested
  # work ... can continue": there is no work in progress to continue, and a
  # "continue" turn after a failure would be one nobody asked for).
  rule "autocompacter_when_idle_checkpoints_now" {
    kind = checkpoint
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 0 && event.idle"
    to   = { phase = "summarizing", request = "none" }
    set = {
      resume         = "false"
      checkpoint_seq = "state.checkpoint_seq + 1"
      checkpoint_id  = "state.checkpoint_seq + 1"
    }
    effect "checkpoint" {
      continue = true
      attempt  = "state.checkpoint_seq + 1"
    }
    effect "reply" {
      text = "message.command_started"
    }
  }

  # "A second request does not replace it."
  rule "autocompacter_second_request_keeps_first" {
    on   = "command"
    from = { request = ["tool", "command"] }
    when = "event.name == 'autocompacter' && nfields(event.args) == 0"
    effect "reply" {
      text = "message.already_requested"
    }
  }

  # "the user runs /autocompacter. The extension stores one request. Pi
  # finishes the current assistant turn and its tool calls."
  rule "autocompacter_while_streaming_stores_request" {
    on   = "command"
    from = { request = "none" }
    when = "event.name == 'autocompacter' && nfields(event.args) == 0"
    to   = { request = "command" }
    effect "reply" {
      text = "message.command_queued"
    }
  }
}

# ---------------------------------------------------------------- the turn boundary

group "checkpoint" {
  # "An aborted or failed turn cancels a queued tool request." A synthetic
  # abort (an assistant message stopped as aborted) is an aborted turn too.
  # The user's stored /autocompacter goes the same way: kept, it would fire
  # at the end of some later, unrelated prompt and add a model turn there.
  # The user is told at the abort, with how to ask again.
  rule "failed_turn_cancels_queued_request" {
    on   = "turn_end"
    from = { request = ["tool", "command"] }
    when = "event.outcome != 'completed' || event.synthetic_abort"
    to   = { request = "none" }
    effect "notify" {
      level = "info"
      text  = "message.request_dropped_turn"
    }
  }

  # "An existing compaction at the same boundary prevents a duplicate."
  # The fact: `compacted` (a compaction ended the session and no request was
  # sent since). The request is satisfied by that compaction.
  rule "existing_compaction_satisfies_request" {
    on   = "turn_end"
    from = { request = ["tool", "command"], phase = "idle" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && state.compacted"
    to   = { request = "none" }
  }

  # "Pi finishes the current assistant turn and its tool calls. The
  # extension summarizes the complete context preview ... adds a
  # self-retaining Pi compaction entry. A requested checkpoint starts the next
  # model turn." "The delay applies when a later turn reaches its
  # boundary": before the retry time the request stays stored for a later
  # boundary. A request made inside the cooldown was dropped when it was
  # made (request group); the cooldown guard keeps a request stored before a
  # checkpoint from firing right after it. The pause does not apply: it stops
  # automatic attempts only.
  # If the summary fails, the run goes on only where there is work to run:
  # the agent's self-compact call is a tool call Pi answers and continues
  # from, as are other tool results and queued messages; after a final
  # answer there is nothing to continue (see the resume group).
  rule "requested_checkpoint_after_turn_and_tool_calls" {
    kind = checkpoint
    on   = "turn_end"
    from = { request = ["tool", "command"], phase = "idle" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && cooled_down && retry_due"
    to   = { request = "none", phase = "summarizing" }
    set = {
      resume         = "state.request == 'tool' || event.tool_results > 0 || event.queued"
      checkpoint_seq = "state.checkpoint_seq + 1"
      checkpoint_id  = "state.checkpoint_seq + 1"
    }
    effect "checkpoint" {
      continue = true
      attempt  = "state.checkpoint_seq + 1"
    }
  }

  # "The extension checks estimated token use at each completed turn. It
  # compacts at the active force limit. A turn with tool results or pending
  # messages continues after compaction. A completed response without pending
  # work does not create an extra model turn." "Force creates a checkpoint
  # instead of a notice." Not inside the cooldown, not before the retry time
  # ("The delay applies when a later turn reaches its boundary"), not while
  # paused ("Three failures pause automatic attempts"), not twice at one
  # boundary.
  rule "force_checkpoint_at_active_limit" {
    kind = hard_reserve
    on   = "turn_end"
    from = { phase = "idle" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && event.enabled && !state.compacted && cooled_down && retry_due && !paused && event.tokens >= active_force"
    to   = { phase = "summarizing" }
    set = {
      resume         = "event.tool_results > 0 || event.queued"
      checkpoint_seq = "state.checkpoint_seq + 1"
      checkpoint_id  = "state.checkpoint_seq + 1"
    }
    effect "checkpoint" {
      continue = "event.tool_results > 0 || event.queued"
      attempt  = "state.checkpoint_seq + 1"
    }
  }

  # "Notice and warning messages start a model turn. The extension sends
  # each level once per cycle. This rule prevents a notice loop." The warning
  # covers the notice of the same cycle.
  rule "warning_once_per_cycle" {
    on   = "turn_end"
    from = { request = "none", phase = "idle" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && event.enabled && !state.warned && event.tokens >= active_warning"
    set = {
      warned  = "true"
      noticed = "true"
    }
    effect "inject" {
      message = "warning"
      deliver = "turn"
    }
  }

  # "Notice and warning messages start a model turn. The extension sends
  # each level once per cycle."
  rule "notice_once_per_cycle" {
    on   = "turn_end"
    from = { request = "none", phase = "idle" }
    when = "event.outcome == 'completed' && !event.synthetic_abort && event.enabled && !state.noticed && event.tokens >= active_notice"
    set  = { noticed = "true" }
    effect "inject" {
      message = "notice"
      deliver = "turn"
    }
  }
}

# ---------------------------------------------------------------- the summary

# Every summary_done rule reads `answers` below from `phase = summarizing`:
# "Session replacement also cancels stale work." The summary of a checkpoint
# the session change dropped can still come back (the host's summary is
# asynchronous), possibly after a newer checkpoint started; it carries the
# older number, fires no rule and has no effect, so it neither ends the newer
# checkpoint nor counts as its failure. No rule names the stale case: a rule
# that matched it would do nothing, and firing no rule is how new_context
# rejects callbacks of older attempts too.
#
# A summary_done without an attempt (0: the contract lets a host omit it)
# answers the checkpoint in flight. Rejecting it instead would leave the
# checkpoint "summarizing" for good — force, notices and the host's own
# compaction all blocked — for a host that simply does not number its
# checkpoints; and such a host has one checkpoint in flight at a time, which
# the phase already tells. Only an identified summary is protected from being
# taken for a newer checkpoint's.
group "summary" {
  # Pi tears a session down by aborting first (session replacement, quit),
  # and the user's abort stops a summary too: the checkpoint is dropped. It
  # is no summary error — no failure counted, no notice, no continuation
  # (Pi reports its own cancelled compaction) — and "An aborted or failed
  # turn cancels a queued tool request" reads the same way for the work it
  # stood for.
  rule "aborted_summary_drops_checkpoint" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok && event.aborted"
    to   = { phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
    }
  }

  # "the user runs /autocompacter ... The extension summarizes the complete
  # context preview ... adds a self-retaining Pi compaction entry." Pi's
  # compact() refuses a context it finds nothing to cut in — within what it
  # keeps verbatim (keepRecentTokens, 20000 by default), or one long turn —
  # with "Nothing to compact" before any extension is asked. The seed's
  # checkpoint keeps nothing verbatim, so that is no reason to skip it. The
  # Pi host first takes the checkpoint itself with no model turn: it
  # summarises the context, pads the session with a hidden message Pi's
  # cut-point search keeps, and answers compact() with the summary as a
  # self-retaining entry (docs/pi.md's seed-reading notes: "Pi's 'Nothing to
  # compact'"). Only when that is not possible (Pi busy, or the padding past
  # its 1 MB bound) does this event come, and then this fallback: the
  # checkpoint is taken the way the agent's self-compact takes it, at a turn
  # end, after one short model turn started for it (the stored request, then
  # the requested checkpoint rule), and the user is told so. No failure, no
  # retry delay. "Already compacted" (the session ends in a compaction) is the
  # rule below.
  rule "nothing_to_cut_checkpoints_after_one_turn" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok && event.already_compact && event.error == 'Nothing to compact (session too small)'"
    to   = { phase = "idle", request = "command" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
    }
    effect "notify" {
      level = "info"
      text  = "message.nothing_to_cut"
    }
    effect "inject" {
      message = "checkpoint_turn"
      deliver = "turn"
    }
  }

  # "An existing compaction at the same boundary prevents a duplicate."
  # Pi's compact() refuses a context that ends in a compaction ("Already
  # compacted"; a "Nothing to compact" of a checkpoint nobody requested, too).
  # That is the session being compact already, not a summary error: a clear
  # reply, no failure towards the pause, no retry delay and no continuation. The boundary counts as
  # compacted until the next request, so a second /autocompacter answers at
  # once.
  rule "nothing_to_compact_is_already_compact" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok && event.already_compact"
    to   = { phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
      compacted     = "true"
    }
    effect "notify" {
      level = "info"
      text  = "message.already_compact"
    }
  }

  # "The extension adds a self-retaining Pi compaction entry." A saved
  # checkpoint ends the cycle (notices may go out again), ends the failure
  # run, and starts the cooldown: "The extension waits 10 seconds after a
  # checkpoint." A request stored while it was written is satisfied by it
  # ("This cooldown prevents repeated requests without new work"): kept, it
  # would fire at the first turn end after the cooldown, however unrelated.
  rule "checkpoint_saved_starts_new_cycle" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && event.ok"
    to   = { phase = "idle", request = "none" }
    set = {
      checkpoint_id  = "0"
      resume         = "false"
      compacted      = "true"
      noticed        = "false"
      warned         = "false"
      failures       = "0"
      retry_at       = "0"
      cooldown_until = "event.now_ms + int(param.cooldown_ms)"
    }
  }

  # "A summary error leaves the session context unchanged. The extension
  # adds a visible error message." "Three failures pause automatic
  # attempts." The retry delay is still set: it spaces out requested
  # checkpoints, which the pause does not stop. The notice says what
  # happens: a requested checkpoint is dropped (not retried), the run goes
  # on from the original context when it does, and automatic checkpoints
  # are paused until /autocompacter.
  # The count stops at failure_limit or at the number of retry delays,
  # whichever is larger: everything that reads it (the pause, the retry
  # delay, whose last entry repeats) reads a larger count alike, and an
  # unbounded count would multiply the states verify explores. Stopped at
  # failure_limit alone, a limit of 1 kept every later failure at the first
  # delay, where the n-th failure in a row waits retry_delays_ms[n-1].
  rule "summary_error_pauses_after_failure_limit" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok && state.failures + 1 >= param.failure_limit"
    to   = { phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
      failures      = "min(state.failures + 1, int(max(param.failure_limit, len(param.retry_delays_ms))))"
      retry_at      = "event.now_ms + retry_delay_ms"
    }
    effect "notify" {
      level = "error"
      text  = "message.summary_failed + (event.error == '' ? '' : ' (' + event.error + ')') + (state.resume ? message.failed_continues : '') + message.summary_failed_paused"
    }
  }

  # "A summary error leaves the session context unchanged. The extension
  # adds a visible error message." "Retry delays are 5, 10, and 20 seconds.
  # The delay applies when a later turn reaches its boundary. The extension
  # does not run a background timer." The n-th failure in a row waits
  # retry_delays_ms[n-1] (the last entry repeats), checked at turn_end. The
  # notice says what happens: a requested checkpoint is dropped (not
  # retried), the run goes on from the original context when it does, and
  # the next automatic attempt waits for the delay.
  rule "summary_error_schedules_retry_delay" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok"
    to   = { phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
      failures      = "min(state.failures + 1, int(max(param.failure_limit, len(param.retry_delays_ms))))"
      retry_at      = "event.now_ms + retry_delay_ms"
    }
    effect "notify" {
      level = "error"
      text  = "message.summary_failed + (event.error == '' ? '' : ' (' + event.error + ')') + (state.resume ? message.failed_continues : '') + retry_wait_text"
    }
  }
}

group "resume" {
  # "Requested work and turns with pending work can continue from the
  # original context." Work continues only where there is work to run: a
  # turn with tool results or queued messages, requested or forced. A
  # requested checkpoint after a final answer has nothing to continue from
  # (Pi refuses a continuation after an assistant reply), so its failure
  # stops, and the notice says the request was dropped. An aborted summary
  # and a session that was already compact stay stopped too (neither is a
  # summary error).
  rule "failed_summary_continues_pending_work" {
    on   = "summary_done"
    from = { phase = "summarizing" }
    when = "(event.attempt == state.checkpoint_id || event.attempt == 0) && !event.ok && !event.aborted && !event.already_compact && state.resume"
    effect "continue" {}
  }
}

# ---------------------------------------------------------------- failure state

group "failures" {
  # "/autocompacter clears the failure state and tries again." The try is
  # the request group's checkpoint or stored request.
  rule "autocompacter_clears_failure_state" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 0 && state.failures > 0"
    set = {
      failures = "0"
      retry_at = "0"
    }
  }
}

# ---------------------------------------------------------------- /autocompacter set | reset

# "Nonterminal use: ... In other modes, use the set or reset command form."
# `/autocompacter set notice|warning|force TOKENS` saves one limit,
# `/autocompacter reset` removes the saved ones. The value must be a whole
# number of tokens above 0 that keeps notice < warning < force against the
# other two saved limits; anything else is answered with an error text and
# changes nothing. A saved limit applies at once through its *_set slot and
# is persisted with save_param; reset clears the session values and the
# persisted ones, and the defaults come back with the next settings reload
# (a policy cannot name a param's default).
group "settings" {
  rule "set_notice_limit" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 3 && field(event.args, 0) == 'set' && field(event.args, 1) == 'notice' && field(event.args, 2) matches '^[0-9]{1,9}$' && int(field(event.args, 2)) > 0 && int(field(event.args, 2)) < saved_warning"
    set  = { notice_set = "int(field(event.args, 2))" }
    effect "save_param" {
      name  = "'notice_limit'"
      value = "int(field(event.args, 2))"
    }
    effect "reply" {
      text = "message.limit_saved + ' notice_limit = ' + string(int(field(event.args, 2)))"
    }
  }

  rule "set_warning_limit" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 3 && field(event.args, 0) == 'set' && field(event.args, 1) == 'warning' && field(event.args, 2) matches '^[0-9]{1,9}$' && int(field(event.args, 2)) > saved_notice && int(field(event.args, 2)) < saved_force"
    set  = { warning_set = "int(field(event.args, 2))" }
    effect "save_param" {
      name  = "'warning_limit'"
      value = "int(field(event.args, 2))"
    }
    effect "reply" {
      text = "message.limit_saved + ' warning_limit = ' + string(int(field(event.args, 2)))"
    }
  }

  rule "set_force_limit" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 3 && field(event.args, 0) == 'set' && field(event.args, 1) == 'force' && field(event.args, 2) matches '^[0-9]{1,9}$' && int(field(event.args, 2)) > saved_warning"
    set  = { force_set = "int(field(event.args, 2))" }
    effect "save_param" {
      name  = "'force_limit'"
      value = "int(field(event.args, 2))"
    }
    effect "reply" {
      text = "message.limit_saved + ' force_limit = ' + string(int(field(event.args, 2)))"
    }
    effect "status" {
      text = "'autocompacter: checkpoint at ' + string(int(min(int(field(event.args, 2)), param.force_cap, param.force_ratio * event.context_window))) + ' tokens'"
    }
  }

  # `/autocompacter set NOTICE WARNING FORCE` saves the three limits at
  # once: the form the setup wizard runs, and the one that can move all
  # three past each other (one at a time, raising notice above the saved
  # force is refused whatever comes next).
  rule "set_all_limits" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 4 && field(event.args, 0) == 'set' && field(event.args, 1) matches '^[0-9]{1,9}$' && field(event.args, 2) matches '^[0-9]{1,9}$' && field(event.args, 3) matches '^[0-9]{1,9}$' && int(field(event.args, 1)) > 0 && int(field(event.args, 1)) < int(field(event.args, 2)) && int(field(event.args, 2)) < int(field(event.args, 3))"
    set = {
      notice_set  = "int(field(event.args, 1))"
      warning_set = "int(field(event.args, 2))"
      force_set   = "int(field(event.args, 3))"
    }
    effect "save_param" {
      name  = "'notice_limit'"
      value = "int(field(event.args, 1))"
    }
    effect "save_param" {
      name  = "'warning_limit'"
      value = "int(field(event.args, 2))"
    }
    effect "save_param" {
      name  = "'force_limit'"
      value = "int(field(event.args, 3))"
    }
    effect "reply" {
      text = "message.limit_saved + ' notice_limit = ' + field(event.args, 1) + ', warning_limit = ' + field(event.args, 2) + ', force_limit = ' + field(event.args, 3)"
    }
    effect "status" {
      text = "'autocompacter: checkpoint at ' + string(int(min(int(field(event.args, 3)), param.force_cap, param.force_ratio * event.context_window))) + ' tokens'"
    }
  }

  # A well-formed `set` whose value is not a whole number above 0 or breaks
  # notice < warning < force: an error text, nothing saved.
  rule "set_limit_rejected" {
    on   = "command"
    when = "event.name == 'autocompacter' && field(event.args, 0) == 'set' && ((nfields(event.args) == 3 && field(event.args, 1) in ['notice', 'warning', 'force']) || (nfields(event.args) == 4 && field(event.args, 1) matches '^[0-9]+$'))"
    effect "reply" {
      text = "message.limit_rejected + ' Saved now: notice ' + string(saved_notice) + ', warning ' + string(saved_warning) + ', force ' + string(saved_force) + '.'"
    }
  }

  rule "reset_saved_limits" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 1 && field(event.args, 0) == 'reset'"
    set = {
      notice_set  = "0"
      warning_set = "0"
      force_set   = "0"
    }
    effect "clear_param" {
      name = "'notice_limit'"
    }
    effect "clear_param" {
      name = "'warning_limit'"
    }
    effect "clear_param" {
      name = "'force_limit'"
    }
    effect "reply" {
      text = "message.limits_reset"
    }
    effect "status" {
      text = "'autocompacter: checkpoint at ' + string(int(min(param.force_limit, param.force_cap, param.force_ratio * event.context_window))) + ' tokens'"
    }
  }

  # "The setup wizard needs a dialog-capable UI." With one, the host asks
  # for the three limits (the saved ones offered as answers) and runs
  # `/autocompacter set NOTICE WARNING FORCE` with the answers, which the
  # rules above check and save.
  rule "setup_asks_for_limits_in_a_dialog" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 1 && field(event.args, 0) == 'setup' && event.dialog"
    effect "ask" {
      title   = "message.setup_notice"
      value   = "string(saved_notice)"
      command = "'set'"
    }
    effect "ask" {
      title   = "message.setup_warning"
      value   = "string(saved_warning)"
      command = "'set'"
    }
    effect "ask" {
      title   = "message.setup_force"
      value   = "string(saved_force)"
      command = "'set'"
    }
  }

  # "In other modes, use the set or reset command form." Without a dialog
  # the wizard explains them, with the limits saved now.
  rule "setup_without_dialog_explains_set_and_reset" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) == 1 && field(event.args, 0) == 'setup'"
    effect "reply" {
      text = "message.setup_needs_dialog + ' Saved now: notice ' + string(saved_notice) + ', warning ' + string(saved_warning) + ', force ' + string(saved_force) + '.'"
    }
  }

  # Anything else after /autocompacter: the usage, nothing changed.
  rule "autocompacter_usage_for_unknown_form" {
    on   = "command"
    when = "event.name == 'autocompacter' && nfields(event.args) > 0"
    effect "reply" {
      text = "message.usage"
    }
  }
}

# ---------------------------------------------------------------- the host's own compaction

# Pi compacts on its own for three reasons, and each has one reading:
#   threshold  the context passed window - reserve. The policy owns the
#              thresholds: below the active force limit the compaction is
#              cancelled; at or above it the seed's checkpoint answers it
#              ("It compacts at the active force limit"), but only while an
#              automatic attempt is allowed. While it is not (a retry delay
#              pending, or paused after failure_limit failures), Pi's own
#              compaction runs as the safety net and the user is told which
#              ran and why: cancelled, the context would only grow.
#   overflow   the provider refused the context. Overflow recovery is Pi's:
#              a summary of the whole overflowing context would overflow the
#              summariser too, while Pi summarises the older part and keeps
#              the rest.
#   manual     the user's /compact [instructions]: Pi's own compaction,
#              with the instructions reaching Pi's summariser. (The
#              extension's own checkpoint outside a turn also runs through
#              Pi's compact(); the host writes it without asking the policy.)
group "boundary" {
  # "An existing compaction at the same boundary prevents a duplicate."
  # While a checkpoint is being written, or when the session already ends in
  # one (nothing sent since), Pi's threshold compaction would compact the
  # same boundary again: it is cancelled.
  rule "threshold_compaction_at_checkpointed_boundary_cancelled" {
    on   = "before_compact"
    when = "event.reason == 'threshold' && event.enabled && (state.phase == 'summarizing' || state.compacted)"
    effect "cancel_compaction" {
      text = "message.duplicate_compaction"
    }
  }

  # The policy owns the thresholds: Pi's threshold below the active force
  # limit (window - reserve is under 80% of small windows) is cancelled
  # without a word; the force, notice and warning at the turn end decide.
  rule "threshold_compaction_below_force_limit_cancelled" {
    on   = "before_compact"
    when = "event.reason == 'threshold' && event.enabled && event.tokens < active_force"
    effect "cancel_compaction" {}
  }

  # "It compacts at the active force limit." Pi's threshold compaction at or
  # above it, while an automatic attempt is allowed, is answered with the
  # seed's checkpoint — "The extension summarizes the complete context
  # preview ... adds a self-retaining Pi compaction entry" — in place of
  # Pi's summary. Pi resumes through its own caller, so the checkpoint asks
  # for no continuation. An aborted signal aborts the summary, which drops
  # the checkpoint (the summary group).
  rule "threshold_compaction_at_force_limit_writes_the_checkpoint" {
    kind = checkpoint
    on   = "before_compact"
    from = { phase = "idle" }
    when = "event.reason == 'threshold' && event.enabled && retry_due && !paused"
    to   = { phase = "summarizing" }
    set = {
      resume         = "false"
      checkpoint_seq = "state.checkpoint_seq + 1"
      checkpoint_id  = "state.checkpoint_seq + 1"
      # The retry time has passed (retry_due), and both ends of the summary
      # write retry_at anew: clearing it changes nothing a user sees and
      # keeps verify's state space small.
      retry_at = "0"
    }
    effect "checkpoint" {
      continue = false
      attempt  = "state.checkpoint_seq + 1"
    }
  }

  # "Three failures pause automatic attempts." "The delay applies when a
  # later turn reaches its boundary." While the policy may not attempt, Pi's
  # own threshold compaction runs as the safety net, and the user is told
  # which ran and why.
  rule "threshold_compaction_while_held_back_is_pis" {
    on   = "before_compact"
    when = "event.reason == 'threshold' && event.enabled"
    effect "notify" {
      level = "info"
      text  = "(paused ? message.pi_compaction_paused : message.pi_compaction_retry_wait)"
    }
  }

  # The host's own compaction is a compaction at this boundary too: a
  # checkpoint request at the same boundary is a duplicate, and the cycle
  # starts over ("each level once per cycle").
  rule "host_compaction_marks_boundary_compacted" {
    on = "compact_done"
    set = {
      compacted = "true"
      noticed   = "false"
      warned    = "false"
    }
  }

  # A request to the model means new work after the compaction: the next
  # boundary is a new one.
  rule "new_request_moves_boundary" {
    on   = "request"
    when = "state.compacted"
    set  = { compacted = "false" }
  }
}

# ---------------------------------------------------------------- new work

group "work" {
  # "This cooldown prevents repeated requests without new work." A completed
  # turn with tool results did work the last checkpoint does not hold: the
  # cooldown ends. It matters only inside the cooldown (after it every
  # request is taken), and no checkpoint is taken at a boundary inside the
  # cooldown, so it never meets one at the same turn end.
  rule "turn_with_tool_results_is_new_work" {
    on   = "turn_end"
    when = "event.outcome == 'completed' && !event.synthetic_abort && event.tool_results > 0 && !cooled_down"
    set  = { cooldown_until = "0" }
  }

  # A request that carries a user prompt after the checkpoint (user_input:
  # a real user message follows the latest boundary) brings new work too:
  # the cooldown ends.
  rule "user_prompt_after_checkpoint_is_new_work" {
    on   = "request"
    when = "event.user_input && !cooled_down"
    set  = { cooldown_until = "0" }
  }
}

# ---------------------------------------------------------------- sessions and models

group "session" {
  # "Session replacement also cancels stale work." "The extension reads
  # settings from the current project at session start. A session tree
  # change reloads them." The stored request and the checkpoint in flight
  # are dropped: checkpoint_id goes back to 0 while checkpoint_seq keeps its
  # value, so a late summary_done of the dropped checkpoint matches no rule,
  # even after a newer checkpoint started (see the summary group). The
  # limits set in this session give way to the reloaded settings, which hold
  # them: the host reads the project's settings again before it reports
  # session_start and session_tree (in Pi, a tree change re-initializes the
  # engine with the project's settings and keeps the session's state).
  rule "session_change_cancels_stale_work_and_reloads_settings" {
    on = ["session_start", "session_tree"]
    to = { request = "none", phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
      compacted     = "false"
      notice_set    = "0"
      warning_set   = "0"
      force_set     = "0"
    }
  }

  # "Session replacement also cancels stale work." Pi shuts a session down
  # before it replaces it (and when it quits or reloads): the checkpoint in
  # flight and the stored request go with it, so a late summary_done of that
  # checkpoint — success or failure — changes nothing, shows nothing and
  # continues nothing.
  rule "session_shutdown_cancels_stale_work" {
    on = "session_shutdown"
    to = { request = "none", phase = "idle" }
    set = {
      checkpoint_id = "0"
      resume        = "false"
    }
  }

  # "A model change resets threshold notices."
  rule "model_change_resets_threshold_notices" {
    on = "model_select"
    set = {
      noticed = "false"
      warned  = "false"
    }
  }
}

# ---------------------------------------------------------------- status

group "status" {
  # The status line says what will happen, from the values the rules use:
  # the active force limit for this window. Settings and the model (its
  # window) are read at session start, tree change and model change; a
  # saved limit changes it at once (the settings group says it there).
  rule "status_says_the_active_force_limit" {
    on = ["session_start", "session_tree", "model_select"]
    effect "status" {
      text = "'autocompacter: checkpoint at ' + string(active_force) + ' tokens'"
    }
  }
}

# ============================================================ properties
# The seed's safety sentences, proved by `resetpolicy verify` over every
# state the policy can reach (and checked by `resetpolicy test --verify`).
# Each names the line of the seed (seeds/002, behavior) it encodes. Every
# property of this policy, and its verify block, is in this region.

verify {
  # The command's arguments are free text the guards split with field():
  # these are the forms the rules tell apart, a rejected value and an
  # unknown form, and saved force limits above the 270000 cap (a user can
  # save any whole number: seed 002 line 34-36 caps it). The context window
  # moves the force limit's 80% cap: 32k and 64k local models (where Pi's
  # own threshold, window - reserve, is under 80%), 128k and the
  # contract's 200k default (the 80% cap, 102400 and 160000, is below the
  # saved levels, so all three scale down), and a 1M window where the
  # 270000 cap binds: the contract's range of windows.
  domain = {
    "command.args" = ["", "set notice 100000", "set warning 150000", "set force 200000", "set force 300000", "set force 1", "set 100000 150000 200000", "set 100000 150000 300000", "setup", "reset", "help"]
    context_window = [32000, 64000, 128000, 200000, 1000000]
  }
}

# seed 002 line 20 "The extension waits 10 seconds after a checkpoint. This
# cooldown prevents repeated requests without new work." Stated by the
# host's clock: for cooldown_ms from the moment the checkpoint is saved
# (not from when it starts), no checkpoint at a turn boundary, until new
# work (a completed turn with tool results, a user prompt) ends the
# cooldown. Which summary saves the checkpoint in flight is read from the
# policy's phase and checkpoint_id: a scope opened at the checkpoint effect
# and closed at the summary echoing its attempt keeps a second history
# beside the policy's, and verify's states of this policy would more than
# double.
property "no checkpoint inside the cooldown" {
  never     = "checkpoint"
  on        = "turn_end"
  after     = { event = "summary_done", when = "event.ok && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" }
  within_ms = "param.cooldown_ms"
  until = [
    { event = "turn_end", when = "event.outcome == 'completed' && !event.synthetic_abort && event.tool_results > 0" },
    { event = "request", when = "event.user_input" },
  ]
}

# seed 002 line 14 "The extension sends each level once per cycle. This
# rule prevents a notice loop"; a cycle ends with a saved checkpoint, a host
# compaction or a model change (line 30 "A model change resets threshold
# notices").
property "the notice at most once per cycle" {
  at_most = 1
  of      = "inject"
  with    = { message = "notice" }
  per     = "cycle"
  cycle_ends_on = {
    summary_done = "event.ok && event.attempt == state.checkpoint_id && state.phase == 'summarizing'"
    compact_done = "true"
    model_select = "true"
  }
}

property "the warning at most once per cycle" {
  at_most = 1
  of      = "inject"
  with    = { message = "warning" }
  per     = "cycle"
  cycle_ends_on = {
    summary_done = "event.ok && event.attempt == state.checkpoint_id && state.phase == 'summarizing'"
    compact_done = "true"
    model_select = "true"
  }
}

# seed 002 line 26 "Three failures pause automatic attempts." The failures
# in a row are counted over the summaries, not the policy's failures slot:
# the scope opens at each failed summary of the checkpoint in flight (an
# aborted one or one that found the session compact already is no
# failure) and closes at a saved one or at /autocompacter, which clears
# them (line 26); scope.openings is the failures in a row. Which summary
# answers the checkpoint in flight, and that a checkpoint is a requested
# one (not paused), are read from the policy's slots.
property "automatic attempts pause after three failures" {
  never = "checkpoint"
  on    = "turn_end"
  when  = "state.request == 'none' && scope.openings >= param.failure_limit"
  after = { event = "summary_done", when = "!event.ok && !event.aborted && !event.already_compact && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" }
  until = [
    { event = "summary_done", when = "event.ok && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" },
    { event = "command", when = "event.name == 'autocompacter' && nfields(event.args) == 0" },
  ]
}

# seed 002 line 26 "Three failures pause automatic attempts": Pi's threshold
# compaction is an automatic attempt too; while paused it is Pi's own.
property "automatic attempts pause after three failures, at Pi's threshold too" {
  never = "checkpoint"
  on    = "before_compact"
  when  = "scope.openings >= param.failure_limit"
  after = { event = "summary_done", when = "!event.ok && !event.aborted && !event.already_compact && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" }
  until = [
    { event = "summary_done", when = "event.ok && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" },
    { event = "command", when = "event.name == 'autocompacter' && nfields(event.args) == 0" },
  ]
}

# seed 002 line 26 "Retry delays are 5, 10, and 20 seconds": no checkpoint
# answers Pi's threshold compaction before the retry delay of the failures
# in a row, by the host's clock from the failed summary.
property "no checkpoint at Pi's threshold before the retry delay" {
  never     = "checkpoint"
  on        = "before_compact"
  within_ms = "param.retry_delays_ms[min(scope.openings, len(param.retry_delays_ms)) - 1]"
  after     = { event = "summary_done", when = "!event.ok && !event.aborted && !event.already_compact && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" }
  until = [
    { event = "summary_done", when = "event.ok && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" },
    { event = "command", when = "event.name == 'autocompacter' && nfields(event.args) == 0" },
  ]
}

# seed 002 line 18 "It compacts at the active force limit": Pi's threshold
# compaction below it never becomes a checkpoint, and Pi's overflow
# recovery and the user's /compact are never replaced by one.
property "no checkpoint for Pi's compaction below the force limit, at overflow or for /compact" {
  never = "checkpoint"
  on    = "before_compact"
  when  = "event.reason != 'threshold' || event.tokens < int(min(saved_force, param.force_cap, param.force_ratio * event.context_window))"
}

# seed 002 line 26 "Retry delays are 5, 10, and 20 seconds. The delay
# applies when a later turn reaches its boundary." The n-th failure in a
# row (scope.openings, counted as above) waits retry_delays_ms[n-1], the
# last entry repeating, by the host's clock from the failed summary.
property "no checkpoint at a turn boundary before the retry delay" {
  never     = "checkpoint"
  on        = "turn_end"
  within_ms = "param.retry_delays_ms[min(scope.openings, len(param.retry_delays_ms)) - 1]"
  after     = { event = "summary_done", when = "!event.ok && !event.aborted && !event.already_compact && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" }
  until = [
    { event = "summary_done", when = "event.ok && state.phase == 'summarizing' && event.attempt == state.checkpoint_id" },
    { event = "command", when = "event.name == 'autocompacter' && nfields(event.args) == 0" },
  ]
}

# seed 002 line 32-38 "The active force limit is the smallest of ... The
# saved force limit. 270,000 tokens. 80% of the model context window", and
# "The three active values stay distinct".
# The properties read the cap and the ratio as the force_cap and
# force_ratio params, so they hold wherever a team sets them (verify
# --params range explores both); the seed's 270000 and 80% are their
# defaults, pinned by the "settings:" runs of autocompacter.test.hcl that
# quote the seed.
property "the active force limit is min(saved, 270000, 80% of the window), with notice < warning < force" {
  always = "active_force == int(min(saved_force, param.force_cap, param.force_ratio * event.context_window)) && active_notice < active_warning && active_warning < active_force"
}

# seed 002 line 38 "Notice and warning scale by the same ratio as force":
# each is its saved value times the active force limit over the saved
# one; the notice stays one below the warning where rounding would make
# them meet ("The three active values stay distinct"). Below an 82k
# window Pi's own threshold (window - reserve) is under 80% of it, and a
# scale taken from that instead is caught in the 32k and 64k windows.
property "notice and warning scale by the force limit's ratio" {
  always = "active_warning == int(saved_warning * (active_force / saved_force)) && active_notice == min(int(saved_notice * (active_force / saved_force)), active_warning - 1)"
}

# seed 002 line 18 "It compacts at the active force limit": a completed
# turn at min(saved, 270000, 80% of the window) is checkpointed, unless
# the cooldown (line 20), the retry delay or the pause (line 26) holds it,
# one is being written, or the session already ends in a compaction (line
# 12).
property "a completed turn at the force limit is checkpointed" {
  always_emits = "checkpoint"
  on           = "turn_end"
  when         = "event.outcome == 'completed' && !event.synthetic_abort && event.enabled && state.phase == 'idle' && !state.compacted && event.now_ms >= state.cooldown_until && event.now_ms >= state.retry_at && state.failures < param.failure_limit && event.tokens >= int(min(saved_force, param.force_cap, param.force_ratio * event.context_window))"
}

# seed 002 line 18: below the force limit nothing is forced.
property "no forced checkpoint below the force limit" {
  never = "checkpoint"
  on    = "turn_end"
  when  = "state.request == 'none' && event.tokens < int(min(saved_force, param.force_cap, param.force_ratio * event.context_window))"
}

# seed 002 line 12 "An aborted or failed turn cancels a queued tool request."
property "an aborted or failed turn never checkpoints" {
  never = "checkpoint"
  on    = "turn_end"
  when  = "event.outcome != 'completed' || event.synthetic_abort"
}

# seed 002 line 18 "A completed response without pending work does not
# create an extra model turn."
property "a forced checkpoint without pending work does not continue" {
  never = "checkpoint"
  with  = { continue = true }
  on    = "turn_end"
  when  = "state.request == 'none' && event.tool_results == 0 && !event.queued"
}

# seed 002 line 10 "A requested checkpoint starts the next model turn."
property "a requested checkpoint continues" {
  never = "checkpoint"
  with  = { continue = false }
  on    = "turn_end"
  when  = "state.request != 'none'"
}

# seed 002 line 12 "Session replacement also cancels stale work": the
# summary of an older checkpoint never continues the run.
property "a stale summary never continues" {
  never = "continue"
  on    = "summary_done"
  when  = "event.attempt != 0 && event.attempt != state.checkpoint_id"
}

# seed 002 line 24 "Requested work and turns with pending work can continue
# from the original context"; with automatic attempts paused after three
# failures, no cycle keeps continuing the run without a new request, a
# saved checkpoint or another action of the user (a session change, a
# model switch, the switch).
property "no continuation loop without a new request or a saved checkpoint" {
  no_loop_of = "continue"
  new_input_on = {
    tool          = "true"
    command       = "true"
    summary_done  = "event.ok"
    session_start = "true"
    session_tree  = "true"
    model_select  = "true"
    toggle        = "true"
  }
}

# seed 002 line 26 "/autocompacter clears the failure state and tries
# again": a /autocompacter stored while a turn runs (the command_queued
# message's text) is taken at the next completed turn, whatever retry
# delay the failures before it set. The session ending in a compaction
# already (line 12 "An existing compaction at the same boundary prevents a
# duplicate") is read from the policy's compacted slot; any other
# checkpoint, compaction, summary or session change before that turn ends
# the scope.
property "/autocompacter tries again at the next turn" {
  always_emits = "checkpoint"
  on           = "turn_end"
  when         = "event.outcome == 'completed' && !event.synthetic_abort && !state.compacted"
  after        = { effect = "reply", with = { text = "Checkpoint requested: it is taken when the current turn and its tool calls finish." } }
  until = [
    { event = "turn_end", inclusive = true },
    { effect = "checkpoint" },
    { event = "before_compact" },
    { event = "compact_done" },
    { event = "summary_done" },
    { event = "session_start" },
    { event = "session_tree" },
    { event = "session_shutdown" },
  ]
}

# Pi tears a session down by aborting first, and the user's abort stops a
# summary too (docs/pi.md's seed-reading notes): seed 002 line 12
# "Session replacement also cancels stale work"; an aborted summary is no
# summary error (line 24 "The extension adds a visible error message" is
# for those): no notice, no continuation.
property "an aborted summary is no summary error" {
  never = "notify"
  on    = "summary_done"
  when  = "event.aborted"
}

property "an aborted summary never continues" {
  never = "continue"
  on    = "summary_done"
  when  = "event.aborted"
}

# seed 002 line 12 "Session replacement also cancels stale work": a
# checkpoint still being written when the session changes or shuts down
# is dropped, so a summary that comes right after the change (its late
# answer) never continues the run. Stated over the checkpoint effect and
# the events, so a composed policy that disables the rule dropping the
# checkpoint at shutdown (it has no effect of its own) is caught; "a stale
# summary never continues" states it for any later summary from the
# policy's checkpoint_id. Only the event right after the change is
# checked: a scope open until the next checkpoint kept a second history
# beside the policy's (7,518 states against 6,251).
property "a summary after a session change never continues" {
  never = "continue"
  on    = "summary_done"
  after = [
    { effect = "checkpoint", then = { event = "session_start", unless = ["summary_done", "session_tree", "session_shutdown"] } },
    { effect = "checkpoint", then = { event = "session_tree", unless = ["summary_done", "session_start", "session_shutdown"] } },
    { effect = "checkpoint", then = { event = "session_shutdown", unless = ["summary_done", "session_start", "session_tree"] } },
  ]
  until = [
    { event = "summary_done", inclusive = true },
    { event = "model_select" },
    { event = "toggle" },
    { event = "tool" },
    { event = "command" },
    { event = "request" },
    { event = "turn_end" },
    { event = "agent_end" },
    { event = "before_settle" },
    { event = "settled" },
    { event = "before_compact" },
    { event = "compact_done" },
    { event = "compact_failed" },
    { event = "before_tree" },
  ]
}
