# Seed 000: "After a budget warning is durable, the extension does not repeat
# it in that window." The warning's durability is the policy's durable state
# (slots marked durable = true), persisted in the session branch and restored
# when the session file is reopened: the reopened session is still in the
# same window, so the warning is not repeated.

scenario "A durable budget warning is not repeated after reopening the session" {
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

# The close-out warning goes into this request and becomes durable.
assistant {
  text   = "Noted. This step is done."
  tokens = 173000
}

reopen {}

# Same window after the reopen: no second warning.
user "And the lexer?" {}

assistant {
  text   = "The lexer needed no change."
  tokens = 174000
}
