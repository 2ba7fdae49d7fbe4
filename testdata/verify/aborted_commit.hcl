# A policy whose abort rule forgets one case: an aborted turn with a pending
# request commits. `resetpolicy verify` must find it (cmd/resetpolicy tests).
policy "aborted_commit" {
  description = "a deliberately broken policy for verify's tests"
}

slot "request" {
  values = ["none", "pending"]
}

group "request" {
  rule "tool_marks_request" {
    on   = "tool"
    when = "event.name == 'reset'"
    to   = { request = "pending" }
  }
  rule "abort_clears" {
    on   = "turn_end"
    from = { request = "none" }
    when = "event.outcome == 'aborted'"
  }
  rule "turn_end_commits" {
    on   = "turn_end"
    from = { request = "pending" }
    to   = { request = "none" }
    effect "commit_reset" {
      continue = true
    }
  }
}

property "an aborted turn never commits a reset" {
  never = "commit_reset"
  on    = "turn_end"
  when  = "event.outcome == 'aborted'"
}
