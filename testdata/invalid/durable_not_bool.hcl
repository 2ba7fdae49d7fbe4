policy "durable_not_bool" {
  description = "Invalid: a slot whose durable is not a bool"
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
  type    = int
  durable = "yes" # ERROR: Wrong durable value
}

message "warning" {
  text = "Your context window is nearly full."
}

group "main" {
  rule "warn" {
    on   = "request"
    from = { phase = "none" }
    when = "event.context_window - event.tokens <= event.reserve + param.runway"
    to   = { phase = "close-out" }
    set  = { failures = "state.failures + 1" }
    effect "inject" {
      message = "warning"
      deliver = "request"
    }
  }
}
