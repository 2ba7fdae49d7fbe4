# Tests of tiny.hcl, a small policy the policy test runner's own tests use.
# Every kind of expectation appears here at least once.

policy = "tiny.hcl"
params = { limit = 3 }

run "counts completed turns and commits at the limit" {
  event "session_start" {
    expect {
      rules   = ["start"]
      effects = []
    }
  }
  event "turn_end" {
    expect {
      rules = ["count"]
      state = { count = 1 }
    }
  }
  event "turn_end" {
    outcome = "aborted"
    expect {
      rules = []
    }
  }
  event "turn_end" {
    tool_results = 2
    expect {
      rules = ["count"]
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
    condition     = "len(decisions) == 5 && last.effects[1].stop == true"
    error_message = "the last event stops the run"
  }
  assert {
    condition     = "state.count == 3 && decisions[2].rules == []"
    error_message = "an aborted turn does not count"
  }
}

run "a run's params override the file's" {
  params = { limit = 1 }
  event "session_start" {}
  event "turn_end" {
    expect {
      effects_contain = [{ effect = "commit_reset" }]
    }
  }
}

run "a starting state skips ahead" {
  state = { phase = "done", count = 7 }
  event "command" {
    name = "reopen"
    expect {
      rules   = ["reopen"]
      effects = [{ effect = "reply", text = "reopened" }]
      state   = { phase = "idle", count = 7 }
    }
  }
}

run "the engine rejects a malformed event and keeps its state" {
  state = { phase = "counting", count = 1 }
  event "turn_end" {
    tokens = "many"
    expect {
      error = "tokens"
      state = { phase = "counting", count = 1 }
    }
  }
  event "turn_end" {
    outcome = "finished"
    expect {
      error = "outcome"
    }
  }
  assert {
    condition     = "all(decisions, {.error != '' && .rules == []})"
    error_message = "both events are rejected"
  }
}
