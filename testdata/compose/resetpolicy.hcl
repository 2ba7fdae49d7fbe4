# A team's wipe_memory: warned earlier, one rule of its own, one rule
# replaced. Everything else is the built-in's, with its own tests.
use "wipe_memory" {
  warning_runway = 20000
}

message "tool_off_how_to" {
  text = "wipe_memory is switched off in this session; nothing was reset. Switch it back on with /resetpolicy on."
}

message "model_notice" {
  text = "Model switched: the reset thresholds now follow its context window."
}

# Added: a group of the team's own, beside the built-in's.
group "team" {
  rule "model_switch_notice" {
    on = "model_select"
    effect "notify" {
      level = "info"
      text  = "message.model_notice"
    }
  }
}

# Replaced: the built-in's answer to a wipe_memory call while switched off,
# now saying how to switch it back on. Same group, same place.
override "tool_refused_while_disabled" {
  on   = "tool"
  when = "event.name == 'wipe_memory' && !event.enabled"
  effect "reply" {
    text = "message.tool_off_how_to"
  }
}
