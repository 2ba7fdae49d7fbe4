# Seed 000, "Abort or error": "Never count as successful close-out. Abort
# clears lifecycle state." "turn_end first clears everything on abort." "An
# aborted run skips agent_before_settle."

scenario "A user abort clears a manual close-out" {
  policy = "wipe_memory"
}

user "Rename the package to ledger." {}

assistant {
  text   = "Renaming."
  tokens = 50000
  call "bash" {
    args   = { command = "gofmt -r 'books -> ledger' -w ." }
    result = "ok"
  }
}

command "/wipe-memory" {}

# The user presses Escape while the next answer streams.
assistant {
  abort = "user"
}

# Later prompts work normally: no close-out is left to commit.
user "Carry on with the rename." {}

assistant {
  text   = "Rename finished."
  tokens = 51000
}
