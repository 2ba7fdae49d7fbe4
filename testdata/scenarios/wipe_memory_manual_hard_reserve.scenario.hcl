# Seed 000, "Hard reserve": "A pending manual stop survives in a run-scoped
# stop-pending phase; empty automatic follow-up is cancelled before provider
# work." "Manual hard-reserve commits request no continuation and retain
# stop-pending across the window change. Further turns cannot reset that
# stopped run again."

scenario "A manual close-out at the hard reserve commits, then cancels the empty follow-up" {
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

# The steered warning arrives; this completed turn reaches the reserve.
assistant {
  text   = "Saving my notes."
  tokens = 184000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# The tool batch's follow-up request in the fresh window is cancelled before
# any provider work: no assistant step is needed for it.
