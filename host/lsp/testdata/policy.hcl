# A small policy for the language server's tests. A comment line with a
# caret marks the position above it: `^ OP: ARGS`, where OP is complete
# (labels that must or, with !, must not be offered), hover (text the
# hover shows), definition (FILE:LINE it jumps to, or FILE:/TEXT/ for the
# line of TEXT) or references (how many).

policy "tiny" {
  description = "Reset after a tool request."
}

param "budget" {
  type        = number
  default     = 1000
  description = "Tokens before the warning."
}

slot "request" {
  values      = ["none", "pending"]
  description = "the request phase"
}

slot "note" {
  type    = string
  initial = ""
}

derived "left" {
  value = "event.context_window - event.tokens"
}

message "ack" {
  text = "Reset requested."
}

tool "reset" {
  description = "Reset the window."
}

group "request" {
  rule "tool_marks_request" {
    on   = "tool"
#            ^ complete: tool, turn_end, session_start, !reply
    when = "event.name == 'reset' && left > param.budget"
#                           ^ definition: policy.hcl:/tool "reset"/
#                           ^ hover: Reset the window.
#                                    ^ definition: policy.hcl:/derived "left"/
#                                                   ^ hover: Tokens before the warning.
#                          ^ complete: reset, !none
    to   = { request = "pending" }
#                       ^ complete: none, pending, !tool
#                       ^ references: 2
#                       ^ hover: the request phase
    set  = { note = "event.window_id" }
#            ^ definition: policy.hcl:/slot "note"/
    effect "reply" {
#            ^ complete: reply, notify, commit_reset, !tool
#           ^ hover: answers the tool call
      text = "message.ack"
#                     ^ complete: ack
    }
    effect "inject" {
      message = "ack"
#                 ^ definition: policy.hcl:/message "ack"/
#                 ^ references: 4
      deliver = "steer"
#                ^ complete: request, steer, turn
#      ^ hover: steer: into the running turn
    }
  }
  rule "completed_turn_commits" {
    kind = reset
    on   = "turn_end"
#           ^ hover: a turn has ended
    from = { request = "pending" }
#            ^ complete: request, !note
    when = "event.outcome == 'completed' && state.note != ''"
#                 ^ complete: outcome, tokens, tool_results, !user_input
#                 ^ hover: how the turn ended
#                                                 ^ complete: note, request
#                                                 ^ definition: policy.hcl:/slot "note"/
    to   = { request = "none" }
    effect "commit_reset" {
      continue = true

#     ^ complete: continue, stop, !text
    }
  }
  rule "request_sees_input" {
    on   = ["request", "turn_end"]

#   ^ complete: on, from, when, to, set, effect, !values
    when = "event.tokens > 0"
#                 ^ complete: tokens, window_id, !user_input, !outcome
    effect "notify" {
      level = "info"
      text  = "message.ack"
    }
  }
}

property "at most one reset per window" {
  at_most = 1
  of      = "commit_reset"
#            ^ hover: retain-none reset boundary
  per     = "window"
}
