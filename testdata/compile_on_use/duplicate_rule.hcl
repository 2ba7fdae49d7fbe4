# Two rules of one name in two groups (line 18). Given a syntax tree, as a
# built-in is, and loaded rules.CompileOnUse, the file loads with its
# groups still in the tree: the duplicate is found when they are read, and
# it is then the error of every plan.
policy "duplicate_rule" {
  description = "a rule name declared twice"
}
slot "phase" {
  values = ["idle", "armed"]
}
group "a" {
  rule "arm" {
    on = "request"
    to = { phase = "armed" }
  }
}
group "b" {
  rule "arm" {
    on = "turn_end"
    to = { phase = "idle" }
  }
}
