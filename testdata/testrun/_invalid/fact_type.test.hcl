policy = "../tiny.hcl"

run "facts of the wrong type" {
  event "turn_end" {
    tokens       = "many"
    outcome      = "finished"
    tool_results = 1.5
  }
  event "tool" {
    args = "not an object"
  }
}
