policy "unknown_event_facts" {
  description = "Invalid: misspelt events; the facts of the event meant are not mistakes too"
}

slot "phase" {
  values = ["none", "done"]
}

group "main" {
  rule "finish" {
    on   = "turn_ends" # ERROR: Unknown event
    when = "event.outcome == 'completed' && event.tool_results > 0"
    to   = { phase = "done" }
  }
  rule "mystery" {
    on   = "zzzz_qqqq"
    when = "event.outcome == 'completed' && event.reason == 'startup'"
    to   = { phase = "none" }
  }
}
