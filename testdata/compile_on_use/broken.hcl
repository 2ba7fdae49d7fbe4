# A rule that cannot compile on turn_end (line 18). Given a syntax tree,
# as a built-in is, and loaded rules.CompileOnUse, the file loads: its
# mistake is then the error of the turn_end plan, and of no other.
policy "broken" {
  description = "a rule that cannot compile"
}
slot "phase" {
  values = ["idle", "armed"]
}
group "g" {
  rule "arm" {
    on   = "request"
    when = "event.tokens > 0"
    to   = { phase = "armed" }
  }
  rule "bad" {
    on   = "turn_end"
    when = "event.tokens + 'x' > 0"
    to   = { phase = "idle" }
  }
}
