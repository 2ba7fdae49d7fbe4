policy "fact_of_another_event" {
  description = "Invalid: a fact the rule's event does not carry"
}

param "runway" {
  type        = number
  default     = 12288
  description = "Tokens of runway above the reserve."
  validation {
    condition     = "value >= 0"
    error_message = "runway must not be negative."
  }
}

slot "phase" {
  values = ["none", "close-out"]
}

slot "failures" {
  type = int
}

message "warning" {
  text = "Your context window is nearly full."
}

group "main" {
  rule "warn" {
    on   = "request"
    from = { phase = "none" }
    when = "event.outcome == 'completed'" # ERROR: Invalid expression
    to   = { phase = "close-out" }
    set  = { failures = "state.failures + 1" }
    effect "inject" {
      message = "warning"
      deliver = "request"
    }
  }
}
