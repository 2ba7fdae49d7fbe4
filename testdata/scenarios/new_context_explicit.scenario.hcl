# Seed 001, SDK test "explicit success". Rows: "new_context: Mark explicit
# request ... Tool returns terminal output." "agent_settled: If idle and an
# explicit request is pending, create one identified attempt and request
# ctx.compact." "Manual ... session_before_compact: Build the reset boundary
# immediately and return it." "Matching session_compact: Confirm boundary".
# "Attempt onComplete: Consume attempt; send continuation only for a
# confirmed boundary when idle with no queued messages."

scenario "An explicit new_context resets at settlement and continues" {
  policy = "new_context"
}

user "Wrap up the storage refactor." {}

assistant {
  text   = "Storage layer refactored; notes written."
  tokens = 60000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# The tool's terminal output ends the tool follow-up; the reset happens once
# the run settles.
assistant {
  text   = "A good point for a fresh window."
  tokens = 60500
  call "new_context" {}
}

# The continuation after the confirmed boundary.
assistant {
  text   = "Fresh window: reading my notes."
  tokens = 3000
}
