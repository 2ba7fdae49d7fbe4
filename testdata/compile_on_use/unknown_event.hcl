# A rule naming an event the host contract does not have (line 13). Given
# a syntax tree, as a built-in is, and loaded rules.CompileOnUse, the file
# loads with its groups still in the tree: the mistake is found when they
# are read, and it is then the error of every plan.
policy "unknown_event" {
  description = "a rule on an event that does not exist"
}
slot "phase" {
  values = ["idle", "armed"]
}
group "g" {
  rule "arm" {
    on = "requets"
    to = { phase = "armed" }
  }
}
