# The run passes; `resetpolicy test --verify` fails it at the verify block's
# limit = 200 (cmd/resetpolicy tests).
policy = "uncapped_limit.hcl"
run "a reset at the limit" {
  event "turn_end" {
    tokens = 100
  }
  assert {
    condition = "any(last.effects, .effect == 'commit_reset')"
  }
}
