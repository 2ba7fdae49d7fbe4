# Disabling the only rule that sends tool_off leaves that built-in message
# unused: check warns about it in the built-in's source.
use "wipe_memory" {}

disable "tool_refused_while_disabled" {
  reason = "no tool"
}
