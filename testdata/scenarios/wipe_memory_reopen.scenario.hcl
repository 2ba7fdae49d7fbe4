# Seed 000, validation: "real SessionManager file reopen after two retain-none
# checkpoints." The session file is written, read back and started again
# (session_start "resume"): only the durable history is left, and it still
# names the active window.

scenario "Reopening the session file after two resets" {
  policy = "wipe_memory"
}

user "Clean up the three packages." {}

assistant {
  text   = "Package one clean."
  tokens = 20000
  call "wipe_memory" {}
}

assistant {
  text   = "Package two clean."
  tokens = 21000
  call "wipe_memory" {}
}

assistant {
  text   = "Window three: reading my notes."
  tokens = 4000
}

reopen {}

user "Continue with package three." {}

assistant {
  text   = "Package three clean."
  tokens = 5000
  call "wipe_memory" {}
}

assistant {
  text   = "All three packages are clean."
  tokens = 3000
}
