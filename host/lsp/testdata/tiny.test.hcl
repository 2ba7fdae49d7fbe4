# A test file (markers as in policy.hcl).
policy = "policy.hcl"
params = { budget = 500 }
#          ^ hover: Tokens before the warning.
#          ^ definition: policy.hcl:/param "budget"/

run "tool request then commit" {
  event "tool" {
#        ^ hover: the model calls a tool
    name = "reset"
#   ^ hover: the tool's name
  }
  event "turn_end" {
#          ^ complete: turn_end, tool, request
    outcome = "completed"
#   ^ complete: outcome, tool_results, tokens, !user_input
    expect {
      rules = ["completed_turn_commits"]
#                  ^ definition: policy.hcl:/rule "completed_turn_commits"/
#                  ^ hover: rule completed_turn_commits
    }
  }
}
