policy = "../tiny.hcl"

run "assert conditions that do not compile" {
  event "turn_end" {}
  assert {
    condition     = "decisions[0].event == \"turn_end\" && lst.rules == []"
    error_message = "a misspelt name after an escaped quote"
  }
  assert {
    condition = <<-EOT
      len(decisions) == 1 &&
        last.rules ==
    EOT
  }
  assert {
    condition = "len(decisions)"
  }
  assert {
    error_message = "no condition"
  }
}
