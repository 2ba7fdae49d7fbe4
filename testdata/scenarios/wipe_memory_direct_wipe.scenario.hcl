# Seed 000, "wipe_memory tool": "Mark the current window tool-requested. At
# turn_end, after the complete tool batch and any accepted budget drafts,
# append the reset boundary and ask Pi to continue." "Direct wipe_memory
# remains valid without a prior warning."

scenario "A direct wipe without a warning" {
  policy = "wipe_memory"
}

user "Tidy the README, then start on the CLI flags." {}

assistant {
  text   = "README tidied. My notes hold the plan for the CLI flags."
  tokens = 30000
  call "wipe_memory" {}
}

assistant {
  text   = "Fresh window: reading my notes."
  tokens = 3000
  call "read" {
    args   = { path = "NOTES.md" }
    result = "Next: add --verbose and --dry-run to the CLI."
  }
}

assistant {
  text   = "Added --verbose and --dry-run."
  tokens = 3500
}
