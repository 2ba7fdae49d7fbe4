# Seed 000: "A user abort, an assistant message with a synthetic stopReason:
# "aborted", and a generic provider error are distinct cases; none commits an
# ordinary close-out, while only Pi's actual operation cancellation is a user
# abort."

scenario "A synthetic abort clears a close-out without a reset" {
  policy = "wipe_memory"
}

user "Split the handler into two files." {}

assistant {
  text   = "Splitting."
  tokens = 45000
  call "edit" {
    args   = { path = "http/handler.go" }
    result = "Applied 1 edit."
  }
}

command "/wipe-memory" {}

# The steered warning arrives after this turn's tool call.
assistant {
  text   = "Second file written."
  tokens = 46000
  call "write" {
    args   = { path = "http/routes.go" }
    result = "Wrote http/routes.go."
  }
}

# The answer arrives stopped as aborted, though nothing was cancelled: the
# run still reaches agent_before_settle, with an aborted outcome.
assistant {
  abort = "synthetic"
}

# A later prompt works normally: no close-out is left to commit.
user "Is the split done?" {}

assistant {
  text   = "Yes: handler.go and routes.go."
  tokens = 47000
}
