# Seed 000, "/wipe-memory": "A successful normal stop commits at
# agent_before_settle after queued messages drain" — queued steering and
# follow-up messages are delivered and answered before the stop.

scenario "Queued steering and follow-up are answered before the manual stop" {
  policy = "wipe_memory"
}

user "Update the changelog for 1.4." {}

assistant {
  text   = "Collecting the changes."
  tokens = 40000
  call "bash" {
    args   = { command = "git log --oneline v1.3..HEAD" }
    result = "12 commits"
  }
}

command "/wipe-memory" {}
steer "Mention the new --dry-run flag." {}
follow_up "Then bump the version number." {}

assistant {
  text   = "Changelog drafted."
  tokens = 41000
  call "edit" {
    args   = { path = "CHANGELOG.md" }
    result = "Applied 1 edit."
  }
}

# First steering message: the hidden checkpoint warning.
assistant {
  text   = "Saving my notes."
  tokens = 41500
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# Second steering message: the user's.
assistant {
  text   = "Added --dry-run to the changelog."
  tokens = 41800
  call "edit" {
    args   = { path = "CHANGELOG.md" }
    result = "Applied 1 edit."
  }
}

assistant {
  text   = "Changelog complete."
  tokens = 42000
}

# The follow-up starts another low-level run before settling.
assistant {
  text   = "Version bumped to 1.4.0."
  tokens = 42300
  call "edit" {
    args   = { path = "version.go" }
    result = "Applied 1 edit."
  }
}

assistant {
  text   = "Done; notes are current."
  tokens = 42500
}
