# A policy that forgets to cap its param: a reset is due by 150 tokens, but
# the rule waits for the limit a user saves. The default holds; the verify
# block's params prove it for a saved 200 too, where it fails
# (cmd/resetpolicy tests).
policy "uncapped_limit" {
  description = "a deliberately broken policy for verify's tests"
}

param "limit" {
  type    = number
  default = 100
}

group "budget" {
  rule "reset_at_the_limit" {
    on   = "turn_end"
    when = "event.tokens >= param.limit"
    effect "commit_reset" {
      continue = true
    }
  }
}

property "a reset by 150 tokens at the latest" {
  always_emits = "commit_reset"
  on           = "turn_end"
  when         = "event.tokens >= 150"
}

verify {
  params = { limit = [200] }
}
