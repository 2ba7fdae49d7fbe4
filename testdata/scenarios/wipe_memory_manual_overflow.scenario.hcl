# Seed 000: "Manual overflow clears and stops without retry, even with
# automatic reset disabled." "Pending manual overflow commits a reset without
# continuation when enabled and unqueued; it does not require automatic reset
# enablement." "/compact while active: Cancel native compaction".

scenario "A manual close-out that overflows commits and stops, with automatic resets off" {
  policy     = "wipe_memory"
  auto_reset = false
}

user "Review the whole repository." {}

assistant {
  text   = "Reading everything."
  tokens = 170000
  call "bash" {
    args   = { command = "cat **/*.go" }
    result = "... many files ..."
  }
}

command "/wipe-memory" {}

# The steered warning arrives after this turn's tool call.
assistant {
  text   = "Noted; saving my notes."
  tokens = 171000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# The next request overflows. Pi's own overflow compaction is cancelled during
# the close-out, so there is no retry; the close-out commits at settlement
# and the run stops, though automatic resets are off.
assistant {
  error = "overflow"
}
