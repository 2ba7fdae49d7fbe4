# A project file that takes a built-in and changes it (markers as in
# policy.hcl; builtin:NAME.hcl:LINE is the built-in's source).

use "wipe_memory" {
#    ^ complete: wipe_memory, new_context, autocompacter
#    ^ definition: builtin:wipe_memory.hcl:1
#    ^ hover: built-in policy wipe_memory
  warning_runway = 20000
# ^ hover: in force: `20000`

# ^ complete: reserve_margin, reminder_margin, !request
}

message "team_notice" {
  text = "Model switched."
}

group "team" {
  rule "model_switch_notice" {
    on = "model_select"
    when = "state.request == 'none' && event.model != ''"
#                 ^ definition: builtin:wipe_memory.hcl:/slot "request"/
#                                            ^ complete: model, tokens, !outcome
    effect "notify" {
      level = "info"
      text  = "message.team_notice"
    }
  }
}

disable "budget_reminder_staged_once_per_window" {
#           ^ complete: budget_reminder_staged_once_per_window, tool_refused_while_disabled
#        ^ definition: builtin:wipe_memory.hcl:/rule "budget_reminder_staged_once_per_window"/
  reason = "this team keeps no notes"
}

override "tool_refused_while_disabled" {
#         ^ definition: builtin:wipe_memory.hcl:/rule "tool_refused_while_disabled"/
#         ^ hover: replaced here
  on   = "tool"
  when = "event.name == 'wipe_memory' && !event.enabled"
  effect "reply" {
    text = "'wipe_memory is off here.'"
  }
}
