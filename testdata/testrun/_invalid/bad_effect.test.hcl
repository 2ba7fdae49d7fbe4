policy = "../tiny.hcl"

run "expected effects the host contract does not have" {
  event "turn_end" {
    expect {
      effects = [
        { effect = "notfiy" },
        { effect = "notify", level = "loud" },
        { effect = "commit_reset", continue = "yes", go = true },
        { level = "info" },
      ]
      effects_contain = "reply"
      rules           = "finish"
    }
  }
}
