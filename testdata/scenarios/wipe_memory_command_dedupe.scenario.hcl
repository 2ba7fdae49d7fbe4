# Seed 000, "wipe_memory tool" / transition rules: "close_out(windowId, source)
# arms a close-out for that window. Repeating an already-pending request
# deduplicates" — the same-window concurrent command.

scenario "A repeated /wipe-memory in the same window deduplicates" {
  policy = "wipe_memory"
}

user "Port the tests to the new API." {}

assistant {
  text   = "Porting the first package."
  tokens = 60000
  call "edit" {
    args   = { path = "api/api_test.go" }
    result = "Applied 3 edits."
  }
}

# Twice, while the same answer streams.
command "/wipe-memory" {}
command "/wipe-memory" {}

assistant {
  text   = "First package ported."
  tokens = 61000
  call "edit" {
    args   = { path = "api/client_test.go" }
    result = "Applied 2 edits."
  }
}

assistant {
  text   = "Notes first."
  tokens = 61500
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

assistant {
  text   = "Closed out."
  tokens = 61700
}
