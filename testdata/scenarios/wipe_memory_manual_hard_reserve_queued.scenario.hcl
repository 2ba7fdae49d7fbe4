# Seed 000, "Hard reserve": "empty automatic follow-up is cancelled before
# provider work, while real queued user input is answered before stopping."
# "Pending messages or a real user message after the reset marker bypass
# cancellation so queued work is not swallowed."

scenario "Queued user input is answered after a manual hard-reserve reset, then the run stops" {
  policy = "wipe_memory"
}

user "Finish the importer." {}

assistant {
  text   = "Importer: CSV done."
  tokens = 150000
  call "edit" {
    args   = { path = "importer/csv.go" }
    result = "Applied 2 edits."
  }
}

command "/wipe-memory" {}

assistant {
  text   = "Importer: JSON done."
  tokens = 160000
  call "edit" {
    args   = { path = "importer/json.go" }
    result = "Applied 2 edits."
  }
}

follow_up "Then run the linter." {}

assistant {
  text   = "Saving my notes."
  tokens = 184000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# The follow-up still waits, so the tool batch's follow-up is not cancelled.
assistant {
  text   = "Notes are saved."
  tokens = 5000
}

# The follow-up is delivered and answered before the run stops.
assistant {
  text   = "The linter is clean."
  tokens = 5400
}
