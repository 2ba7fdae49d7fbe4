policy "many_mistakes" {
  description = "Invalid: twelve mistakes, all reported by one run of check"
}

param "runway" {
  type        = number
  default     = "lots"
  description = "runway"
}

param "runway" {
  type        = number
  default     = 1
  description = "again"
}

slot "phase" {
  values = ["none", "close-out"]
}

slot "failures" {
  type = int
}

message "warning" {
  text = "full"
}

group "main" {
  rule "warn" {
    on   = "requst"
    from = { phase = "non" }
    when = "event.tokenz > 1"
    to   = { phase = "closed" }
    set  = { failures = "state.failures + \"x\"" }
    effect "inject" {
      message = "warnin"
      deliver = "sometime"
    }
  }
  rule "warn" {
    on   = "request"
    when = "event.tokens"
    effect "notfy" {
      text = "x"
    }
  }
}
