# A tiny policy for the policy test runner's own tests: it counts completed
# turns and, at the limit, notifies and commits a reset that stops the run.

policy "tiny" {
  description = "Counts completed turns; at the limit it notifies and commits a reset."
}

param "limit" {
  type        = number
  default     = 3
  description = "Completed turns before the reset."
  validation {
    condition     = "value >= 1"
    error_message = "limit must be at least 1."
  }
}

slot "phase" {
  values  = ["idle", "counting", "done"]
  initial = "idle"
}

slot "count" {
  type    = int
  initial = 0
}

group "main" {
  rule "start" {
    on   = ["session_start"]
    from = { phase = ["idle"] }
    to   = { phase = "counting" }
    set  = { count = "0" }
  }
  rule "count" {
    on   = ["turn_end"]
    from = { phase = ["counting"] }
    when = "event.outcome == 'completed' && float(state.count + 1) < param.limit"
    set  = { count = "state.count + 1" }
  }
  rule "finish" {
    on   = ["turn_end"]
    from = { phase = ["counting"] }
    when = "event.outcome == 'completed'"
    to   = { phase = "done" }
    set  = { count = "state.count + 1" }
    effect "notify" {
      level = "info"
      text  = "'limit reached'"
    }
    effect "commit_reset" {
      continue = false
      stop     = true
    }
  }
  rule "reopen" {
    on   = ["command"]
    from = { phase = ["done"] }
    when = "event.name == 'reopen'"
    to   = { phase = "idle" }
    effect "reply" {
      text = "'reopened'"
    }
  }
}
