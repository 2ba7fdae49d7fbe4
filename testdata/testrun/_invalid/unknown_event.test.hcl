policy = "../tiny.hcl"

run "an event the host contract does not have" {
  event "turn_done" {}
}
