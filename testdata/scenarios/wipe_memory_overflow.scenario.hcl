# Seed 000, "Abort or error": "automatic provider-overflow recovery remains
# separately bounded." "other requests arm automatic overflow recovery only
# when there is no queued work, the extension is enabled, and automatic reset
# is enabled." "Other pending overflow recovery gets its one bounded attempt
# when enabled and unqueued." "The one recovery has been used until the chain
# settles."
#
# Pi's defaults: its automatic compaction is on, and the policy cancels its
# overflow compaction ("/compact while active: Cancel native compaction"), so
# the policy's bounded recovery is the only one: no summary of the old
# history is written.

scenario "Overflow recovery resets once, and only once per failure chain" {
  policy = "wipe_memory"
}

user "Summarise the production logs." {}

assistant {
  text   = "Reading the logs."
  tokens = 150000
  call "read" {
    args   = { path = "logs/prod.log" }
    result = "... 40000 lines ..."
  }
}

assistant {
  error = "overflow"
}

# The recovery: a reset at agent_before_settle that continues in a fresh
# window. It overflows again: no second reset in this chain.
assistant {
  error = "overflow"
}

# A new prompt starts a new chain: one recovery is available again.
user "Read only the last hour." {}

assistant {
  error = "overflow"
}

assistant {
  text   = "The last hour has 3 errors, all timeouts."
  tokens = 9000
}
