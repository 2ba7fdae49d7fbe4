# The built-in scenario of `resetpolicy simulate`: one context window filled,
# warned and wiped under the wipe_memory policy.
#
# With the defaults (a 200000-token window, Pi's 16384-token reserve) the
# policy reminds the agent to keep notes once 40960 tokens or fewer are left
# (reserve + reminder_margin), and asks it to close out at 28672 (reserve +
# warning_runway). The agent saves its notes and calls wipe_memory: at the end
# of that turn the window is replaced by a retain-none reset boundary and the
# agent continues in a fresh window from its notes.

scenario "A window filled, warned and wiped" {
  description    = "wipe_memory: a budget reminder, the close-out warning, the agent's wipe_memory call and a reset that continues in a fresh window."
  policy         = "wipe_memory"
  context_window = 200000
  reserve        = 16384
}

user "Add input validation to the config loader. Keep your notes in NOTES.md as you go." {}

assistant {
  text   = "Reading the loader first."
  tokens = 118000
  call "read" {
    args   = { path = "config/load.go" }
    result = "package config\n\nfunc Load(path string) (*Config, error) { ... }"
  }
}

assistant {
  text   = "Adding a Validate method and calling it from Load."
  tokens = 146000
  call "edit" {
    args   = { path = "config/load.go" }
    result = "Applied 1 edit."
  }
}

assistant {
  text   = "Running the tests."
  tokens = 161000
  call "bash" {
    args   = { command = "go test ./config" }
    result = "ok  example.com/app/config 0.012s"
  }
}

# The request after that turn has about 39000 tokens left: the reminder goes
# into it, and becomes durable when the turn completes.
assistant {
  text   = "Tests pass. Recording progress before the YAML path."
  tokens = 166000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

assistant {
  text   = "Validating the YAML loader too."
  tokens = 173000
  call "edit" {
    args   = { path = "config/yaml.go" }
    result = "Applied 2 edits."
  }
}

# About 27000 tokens left: the close-out warning goes into this request and
# an automatic close-out is armed.
assistant {
  text   = "The window is nearly full. Saving my notes first."
  tokens = 176500
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

assistant {
  text   = "Notes are complete: YAML validation is in, its tests are next."
  tokens = 177800
  call "wipe_memory" {}
}

# A fresh window: the boundary's boot and continuation messages are all the
# agent sees of the past, besides its notes.
assistant {
  text   = "Fresh window. Reading my notes."
  tokens = 9200
  call "read" {
    args   = { path = "NOTES.md" }
    result = "# Notes\n- Validate() added and called from Load; tests pass.\n- YAML validation in config/yaml.go.\n- Next: tests for the YAML path."
  }
}

assistant {
  text   = "Added the YAML tests; everything passes. Validation is done."
  tokens = 12400
}
