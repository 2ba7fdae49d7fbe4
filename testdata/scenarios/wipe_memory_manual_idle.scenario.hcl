# Seed 000, "/wipe-memory": "when idle it starts one ordinary model turn ...
# The agent may write notes/use tools over several turns; its own wipe_memory
# call only acknowledges. A successful normal stop commits at
# agent_before_settle after queued messages drain, and the committed reset
# stops the run instead of continuing in the fresh window."

scenario "Idle /wipe-memory commits at settlement and stops" {
  policy = "wipe_memory"
}

user "Refactor the logger to use structured fields." {}

assistant {
  text   = "The logger now takes structured fields."
  tokens = 40000
}

# The agent is idle: the command starts one turn with the hidden warning.
command "/wipe-memory" {}

assistant {
  text   = "Saving my notes before the wipe."
  tokens = 41000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

# Inside a manual close-out the agent's own call only acknowledges.
assistant {
  text   = "Notes are complete."
  tokens = 41500
  call "wipe_memory" {}
}

assistant {
  text   = "Ready: my notes hold the task and the next step."
  tokens = 41700
}
