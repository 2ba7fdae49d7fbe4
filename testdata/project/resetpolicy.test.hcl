policy = "resetpolicy.hcl"

# With 200000 tokens of window and Pi's reserve of 16384, the close-out warning
# now goes out at 36384 tokens left instead of 28672.
run "the warning goes out at reserve + 20000" {
  event "request" {
    tokens = 163616
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}

run "the built-in's runway alone would not warn yet" {
  params = { warning_runway = 12288 }
  event "request" {
    tokens = 163616
    expect {
      effects = [{ effect = "inject", message = "budget_reminder", deliver = "request" }]
    }
  }
}

# The hard reserve commits 4096 tokens before Pi's reserve is reached.
run "the hard reserve commits at reserve + 4096" {
  event "turn_end" {
    tokens = 179520
    expect {
      rules           = ["turn_end_hard_reserve_commits"]
      effects_contain = [{ effect = "commit_reset", continue = true }]
    }
  }
  event "turn_end" {
    tokens = 179000
    expect {
      effects = []
    }
  }
}
