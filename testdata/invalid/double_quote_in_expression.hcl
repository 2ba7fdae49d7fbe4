policy "double_quote_in_expression" {
  description = "Invalid: a double-quoted string inside an expression string ends it early"
}

group "g" {
  rule "r" {
    on = "tool"
    # ERROR: Missing newline after argument
    when = "event.name == "wipe_memory""
  }
}
