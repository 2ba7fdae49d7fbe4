# Seed 000, "Abort or error": "An ordinary close-out error is dropped without
# reset." "Other failures drop the request but preserve the overflow chain."

scenario "A provider error drops a close-out without a reset" {
  policy = "wipe_memory"
}

user "Update the dependencies." {}

assistant {
  text   = "Checking for updates."
  tokens = 70000
  call "bash" {
    args   = { command = "go list -m -u all" }
    result = "3 updates available"
  }
}

command "/wipe-memory" {}

# The steered warning arrives after this turn's tool call.
assistant {
  text   = "Updating go.mod."
  tokens = 70500
  call "bash" {
    args   = { command = "go get -u ./..." }
    result = "upgraded 3 modules"
  }
}

assistant {
  error = "503 Service Unavailable: the model is overloaded"
}

user "Try again, please." {}

assistant {
  text   = "Dependencies updated."
  tokens = 71000
}
