# Seed 001, SDK test "core compaction rejection followed by a user prompt".
# "Pi also determines compaction eligibility before the extension hook; an
# uncompactable session produces a warning and waits for a new prompt." Row
# "Attempt onError or synchronous throw: Clear attempt/request, warn, retain
# history. No automatic retry loop."

scenario "Pi rejects the compaction; the next prompt works normally" {
  policy = "new_context"
}

user "Finish the docs." {}

# Pi refuses the next compaction before the extension hook.
compaction {
  reject = "Nothing to compact (session too small)"
}

assistant {
  text   = "Docs finished."
  tokens = 40000
  call "new_context" {}
}

user "Add an example to the README." {}

assistant {
  text   = "Example added."
  tokens = 41000
}
