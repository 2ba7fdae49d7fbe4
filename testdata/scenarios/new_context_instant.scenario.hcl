# Seed 001, SDK test "instant automatic reset". Row "Manual, threshold or
# overflow session_before_compact, idle or streaming: Build the reset boundary
# immediately and return it. Never cancel and never take a model turn." "After
# it, the model either ends the window itself with new_context or rides into
# Pi's automatic compaction, which resets on the spot with no turn." "The
# final checkpoint warning is steered earlier from the context hook once per
# window at reserve+12288 tokens remaining."

scenario "Threshold, manual and overflow compactions reset on the spot" {
  policy = "new_context"
}

user "Index the whole monorepo." {}

assistant {
  text   = "Listing packages."
  tokens = 150000
  call "bash" {
    args   = { command = "go list ./..." }
    result = "412 packages"
  }
}

assistant {
  text   = "Indexing the first half."
  tokens = 175000
  call "bash" {
    args   = { command = "indexer --half 1" }
    result = "done"
  }
}

# The checkpoint warning is in this request; the agent keeps working and the
# turn ends past Pi's threshold: the compaction before the next turn is the
# reset, and the run goes on in the fresh window.
assistant {
  text   = "Indexing the second half."
  tokens = 186000
  call "bash" {
    args   = { command = "indexer --half 2" }
    result = "done"
  }
}

assistant {
  text   = "Fresh window: the index is built."
  tokens = 8000
}

# The user's /compact while idle is a reset too, with no model turn.
compact {}

# An overflow: Pi's recovery compaction is the reset, then it retries.
user "Now summarise the index." {}

assistant {
  error = "overflow"
}

assistant {
  text   = "412 packages, 3 cycles found."
  tokens = 5000
}
