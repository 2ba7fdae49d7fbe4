# The run passes, and so does `resetpolicy test --verify`; `test --verify
# --params range` fails it at cap = 1 (cmd/resetpolicy tests).
policy = "margin.hcl"
run "a compaction at the limit is cancelled" {
  event "before_compact" {
    tokens = 10
  }
  assert {
    condition = "any(last.effects, .effect == 'cancel_compaction')"
  }
}
