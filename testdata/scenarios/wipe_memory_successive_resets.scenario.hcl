# Seed 000, validation: "successive resets" and "warning/marker order": two
# windows closed in a row, each by its own ordered boundary; the raw history
# of both stays in the session.

scenario "Two successive resets" {
  policy = "wipe_memory"
}

user "Migrate the three services to the new config format." {}

assistant {
  text   = "Service one migrated; notes updated."
  tokens = 176000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# The close-out warning is in this request; the agent wipes in this turn.
assistant {
  text   = "Notes complete."
  tokens = 177000
  call "wipe_memory" {}
}

assistant {
  text   = "Window two: service two migrated."
  tokens = 176500
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

assistant {
  text   = "Notes complete again."
  tokens = 177500
  call "wipe_memory" {}
}

assistant {
  text   = "Window three: service three migrated. All done."
  tokens = 8000
}
