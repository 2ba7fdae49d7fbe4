policy = "../tiny.hcl"

run "unclosed" {
  event "turn_end" {
    tokens = 5
