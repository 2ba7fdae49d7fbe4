policy "unknown_decision_kind" {
  description = "Invalid: a message whose kind is not a decision kind"
}

message "nudge" {
  kind = warnign # ERROR: Unknown decision kind
  text = "Your context window is nearly full."
}

group "main" {
  rule "nudge" {
    on   = "request"
    when = "event.context_window - event.tokens <= event.reserve + 12288"
    effect "inject" {
      message = "nudge"
      deliver = "request"
    }
  }
}
