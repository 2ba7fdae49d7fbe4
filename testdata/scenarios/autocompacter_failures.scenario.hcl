# Seed 002, "Errors": "A summary error leaves the session context unchanged.
# The extension adds a visible error message. Requested work and turns with
# pending work can continue from the original context." "Retry delays are 5,
# 10, and 20 seconds. The delay applies when a later turn reaches its
# boundary. The extension does not run a background timer. Three failures
# pause automatic attempts. /autocompacter clears the failure state and tries
# again."

scenario "Summary failures: retry delays, pause, and /autocompacter" {
  policy = "autocompacter"
}

user "Refactor the scheduler." {}

# The next three summaries fail.
summary {
  ok    = false
  error = "model overloaded"
}

summary {
  ok    = false
  error = "model overloaded"
}

summary {
  ok    = false
  error = "model overloaded"
}

# Force limit reached: the checkpoint fails (1st), the turn continues from
# the original context.
assistant {
  text   = "Scheduler split into two files."
  tokens = 162000
  call "edit" {
    args   = { path = "sched/queue.go" }
    result = "Applied 1 edit."
  }
}

# The retry waits 5 s: this boundary comes too early.
assistant {
  text   = "Queue tests updated."
  tokens = 163000
  call "edit" {
    args   = { path = "sched/queue_test.go" }
    result = "Applied 1 edit."
  }
}

wait "5s" {}

# Retried: fails (2nd); the next retry waits 10 s.
assistant {
  text   = "Worker pool extracted."
  tokens = 164000
  call "edit" {
    args   = { path = "sched/pool.go" }
    result = "Applied 1 edit."
  }
}

wait "10s" {}

# Retried: fails (3rd); automatic checkpoints pause.
assistant {
  text   = "Pool tests updated."
  tokens = 165000
  call "edit" {
    args   = { path = "sched/pool_test.go" }
    result = "Applied 1 edit."
  }
}

wait "20s" {}

# Paused: no forced checkpoint, however long the wait.
assistant {
  text   = "Scheduler refactor done."
  tokens = 166000
}

# The user clears the failures; the checkpoint is taken at once and the agent
# resumes from it.
command "/autocompacter" {}

assistant {
  text   = "Resumed from the checkpoint."
  tokens = 9000
}
