# Seed 000, "Hard reserve": "Independent safety path: if automatic resets are
# enabled and completed-turn usage reaches Pi's reserve, commit a boundary at
# turn_end."

scenario "The hard reserve commits a reset at turn_end and continues" {
  policy = "wipe_memory"
}

user "Generate the fixtures for every locale." {}

assistant {
  text   = "Generating."
  tokens = 150000
  call "bash" {
    args   = { command = "go run ./tools/fixtures" }
    result = "wrote 48 files"
  }
}

# One big tool result: the completed turn ends within the reserve.
assistant {
  text   = "Checking the output."
  tokens = 185000
  call "read" {
    args   = { path = "fixtures/index.json" }
    result = "{ ... }"
  }
}

assistant {
  text   = "Fresh window; the fixtures are generated, verifying them next."
  tokens = 6000
}
