# Seed 001. Row "Attempt onError or synchronous throw: Clear attempt/request,
# warn, retain history. No automatic retry loop." Row "Manual, threshold or
# overflow session_before_compact ...: an aborted signal returns { cancel:
# true }."

scenario "A failed attempt warns and retains history; an aborted signal cancels" {
  policy = "new_context"
}

user "Close out the release branch." {}

# The compaction of the coming attempt fails after the hook.
compaction {
  error = "could not write the session file"
}

assistant {
  text   = "Release notes written."
  tokens = 50000
  call "new_context" {}
}

# No retry loop: the next run settles without a new attempt.
user "Tag the release." {}

# Pi's next compaction has its signal aborted.
compaction {
  signal_aborted = true
}

assistant {
  text   = "Tagging."
  tokens = 185000
  call "bash" {
    args   = { command = "git tag v1.4.0" }
    result = "ok"
  }
}

assistant {
  text   = "Tagged v1.4.0."
  tokens = 185500
}
