# Runs against broken.hcl, a copy of ../tiny.hcl with a broken "count" rule.
# The golden file broken.golden holds the exact report; regenerate it with
#   go test ./engine/testrun -update

policy = "broken.hcl"
params = { limit = 3 }

run "counts completed turns and commits at the limit" {
  event "session_start" {}
  event "turn_end" {}
  event "turn_end" {
    expect {
      rules = ["count"]
      state = { count = 2 }
    }
  }
  event "turn_end" {
    expect {
      rules = ["finish"]
      effects = [
        { effect = "notify", level = "info", text = "limit reached" },
        { effect = "commit_reset", continue = false, stop = true },
      ]
    }
  }
  expect {
    state = { phase = "done", count = 3 }
  }
  assert {
    condition     = "last.effects[1].stop == true"
    error_message = "the last event stops the run"
  }
  assert {
    condition     = "len(decisions) == 4"
    error_message = "this assert holds and is not reported"
  }
}

run "a starting state skips ahead" {
  state = { phase = "done", count = 7 }
  event "command" {
    name = "reopen"
    expect {
      rules   = ["reopen"]
      effects = [{ effect = "reply", text = "reopened" }]
    }
  }
}

run "a limit of one commits at the first turn" {
  params = { limit = 1 }
  event "session_start" {}
  event "turn_end" {
    expect {
      effects_contain = [{ effect = "notify" }, { effect = "commit_reset", stop = true }]
    }
  }
}

run "an expected rejection that does not come, and a rule the policy lacks" {
  event "turn_end" {
    tokens = "many"
    expect {
      error = "tokens"
    }
  }
  event "turn_end" {
    tokens = 5
    expect {
      error = "tokens"
    }
  }
  event "command" {
    name = "reopen"
    expect {
      rules = ["reopen_now"]
    }
  }
}

run "a param the policy rejects fails the run" {
  params = { limit = 0 }
  event "session_start" {}
}
