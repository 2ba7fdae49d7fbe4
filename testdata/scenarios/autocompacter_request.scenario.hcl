# Seed 002, "Checkpoint lifecycle": "1. The agent calls self-compact, or the
# user runs /autocompacter. 2. The extension stores one request. A second
# request does not replace it. 3. Pi finishes the current assistant turn and
# its tool calls. 4. The extension summarizes the complete context preview.
# This preview includes the turn's tool results. 5. The extension adds a
# self-retaining Pi compaction entry. 6. A requested checkpoint starts the
# next model turn. The agent resumes from the summary." "The extension waits
# 10 seconds after a checkpoint. This cooldown prevents repeated requests
# without new work."

scenario "Request, checkpoint, resume" {
  policy = "autocompacter"
}

user "Implement the retry middleware." {}

assistant {
  text   = "Middleware written."
  tokens = 60000
  call "edit" {
    args   = { path = "http/retry.go" }
    result = "Applied 1 edit."
  }
}

# Two requests in one answer: the second does not replace the first.
assistant {
  text   = "A good point to checkpoint."
  tokens = 61000
  call "self-compact" {}
  call "self-compact" {}
}

assistant {
  text   = "Resuming from the summary: the tests come next."
  tokens = 6000
}

# "The extension waits 10 seconds after a checkpoint. This cooldown prevents
# repeated requests without new work." Right after the checkpoint, with no
# new work since (the resumed turn ran no tools and no user prompt came),
# the user's /autocompacter is answered and dropped.
command "/autocompacter" {}

wait "10s" {}

# After the cooldown, /autocompacter while idle checkpoints at once and
# resumes.
command "/autocompacter" {}

assistant {
  text   = "Resumed from the checkpoint."
  tokens = 2500
}
