# Seed 000: "/tree summary generation is suppressed with an empty summary when
# either branch crosses a reset, because the raw summary generator bypasses
# the provider projection." A branch that does not cross a reset is summarised
# as usual.

scenario "Tree summaries are suppressed across a reset" {
  policy = "wipe_memory"
}

user "Try the first approach to caching." {}

assistant {
  text   = "Approach one: an LRU in front of the store."
  tokens = 30000
}

mark "before-reset" {}

user "Save notes and wipe." {}

assistant {
  text   = "Notes saved."
  tokens = 31000
  call "wipe_memory" {}
}

assistant {
  text   = "Fresh window."
  tokens = 3000
}

mark "fresh" {}

user "Try a write-through cache instead." {}

assistant {
  text   = "Write-through cache drafted."
  tokens = 4000
}

# Back to the start of the fresh window: the branch left behind stays in
# window w2, so it is summarised.
tree "fresh" {
  summarize = true
}

# Back to before the reset: the branch left behind crosses it, so no summary.
tree "before-reset" {
  summarize = true
}

user "Continue approach one." {}

assistant {
  text   = "Back on approach one."
  tokens = 32000
}
