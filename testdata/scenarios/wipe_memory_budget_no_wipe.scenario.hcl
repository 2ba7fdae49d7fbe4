# Seed 000, "Budget warning": "An explicit wipe_memory commits the boundary; a
# successful normal stop alone never resets or requests continuation." "A
# budget close-out without an explicit wipe is discarded at settlement
# without resetting." "After a budget warning is durable, the extension does
# not repeat it in that window."

scenario "A budget close-out without a wipe is discarded at settlement" {
  policy = "wipe_memory"
}

user "Keep going on the parser." {}

assistant {
  text   = "Parser: error recovery added."
  tokens = 172000
  call "edit" {
    args   = { path = "parser/recover.go" }
    result = "Applied 1 edit."
  }
}

# The close-out warning goes into this request; the agent just stops.
assistant {
  text   = "Noted. This step is done."
  tokens = 173000
}

# A new prompt in the same window: the close-out is armed again, silently.
user "And the lexer?" {}

assistant {
  text   = "The lexer needed no change."
  tokens = 174000
}
