# A then that is also an until event with no condition closes the scope as
# it opens it: the property would check nothing.
policy "scope_closed" {}

message "checkpoint_warning" {
  text = "Your context window is nearly full."
}

group "g" {
  rule "warn" {
    on   = "request"
    when = "event.tokens > 100"
    effect "inject" {
      message = "checkpoint_warning"
      deliver = "request"
    }
  }
}

property "no second warning once the first one's turn completed" {
  never = "inject"
  on    = "request"
  after = {
    effect = "inject"
    then   = { event = "turn_end", when = "event.outcome == 'completed'" }
  }
  until = [
    { event = "session_start" },
    # ERROR: Scope closed as it opens
    { event = "turn_end" },
  ]
}
