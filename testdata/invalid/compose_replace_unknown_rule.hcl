use "wipe_memory" {}

# Replacing a rule the built-in does not have.
override "tool_request_mark_window" { # ERROR: Unknown built-in rule
  on = "tool"
}
