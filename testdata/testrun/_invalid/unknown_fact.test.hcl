policy = "../tiny.hcl"

run "a misspelt fact" {
  event "turn_end" {
    tokenz = 5
  }
}
