# Seed 002, "Settings and models": "The active force limit is the smallest of
# these values: The saved force limit. 270,000 tokens. 80% of the model
# context window. Notice and warning scale by the same ratio as force. The
# three active values stay distinct." "A model change resets threshold
# notices." "Nonterminal use: ... The setup wizard needs a dialog-capable
# UI. In other modes, use the set or reset command form."

scenario "Saved limits, a model change and a reset of the limits" {
  policy = "autocompacter"
}

# The simulated host has no dialogs: setup explains the set and reset forms.
command "/autocompacter setup" {}

command "/autocompacter set notice 100000" {}
command "/autocompacter set warning 140000" {}
command "/autocompacter set force 150000" {}

# Rejected: notice < warning < force must hold.
command "/autocompacter set notice 300000" {}

user "Profile the importer." {}

# Past the saved notice level: a notice starts a turn.
assistant {
  text   = "Profiling."
  tokens = 101000
}

assistant {
  text   = "Noted. The hot path is CSV parsing."
  tokens = 102000
}

# A smaller model: 80% of its window is now the force limit, the levels
# scale with it, and the notices of the cycle are reset.
model "small-model" {
  context_window = 150000
}

user "Go on with JSON." {}

assistant {
  text   = "JSON is fine."
  tokens = 103000
}

assistant {
  text   = "Noted."
  tokens = 103500
}

command "/autocompacter reset" {}

# All three at once, the form the setup wizard runs with its answers.
command "/autocompacter set 120000 160000 200000" {}
