polcy = "../tiny.hcl"

run "one" {
  state = "counting"
  event "turn_end" {
    expect {}
    expect {}
    check {}
  }
  expect {
    rules = []
  }
}

run "one" {
  params = { limit = null }
}
