# Seed 000: "agent_settled, session start/tree navigation/shutdown,
# /pi-context off, and abort clear transient request state." Switched off,
# the tool and the command refuse.

scenario "Switching the policy off clears a close-out" {
  policy = "wipe_memory"
}

user "Write the benchmark." {}

assistant {
  text   = "Benchmark drafted."
  tokens = 40000
  call "write" {
    args   = { path = "bench_test.go" }
    result = "Wrote bench_test.go."
  }
}

command "/wipe-memory" {}
toggle "off" {}

assistant {
  text   = "Benchmark runs."
  tokens = 41000
  call "wipe_memory" {}
}

assistant {
  text   = "Done."
  tokens = 41500
}

command "/wipe-memory" {}
toggle "on" {}
