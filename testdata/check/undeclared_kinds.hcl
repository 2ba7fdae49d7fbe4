# A policy that injects a message but declares no decision kind: it loads,
# and check warns at its first inject.
policy "team" {}

message "close_out_nudge" {
  text = "Write your notes now; this window closes soon."
}

group "budget" {
  rule "nudge_near_the_end" {
    on   = "request"
    when = "event.context_window - event.tokens <= event.reserve + 20000"
    effect "inject" {
      message = "close_out_nudge"
      deliver = "request"
    }
  }
}
