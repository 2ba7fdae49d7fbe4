# Seed 000, "/wipe-memory": "while streaming it steers the running turn so the
# agent closes out promptly ... A successful normal stop commits at
# agent_before_settle ... and the committed reset stops the run instead of
# continuing in the fresh window."

scenario "Streaming /wipe-memory steers the turn, commits at settlement and stops" {
  policy = "wipe_memory"
}

user "Write the database migration for the orders table." {}

assistant {
  text   = "Reading the schema."
  tokens = 50000
  call "read" {
    args   = { path = "db/schema.sql" }
    result = "CREATE TABLE orders (...);"
  }
}

# Typed while the agent streams its second answer.
command "/wipe-memory" {}

assistant {
  text   = "Migration drafted."
  tokens = 52000
  call "write" {
    args   = { path = "db/migrations/0042_orders.sql" }
    result = "Wrote the migration."
  }
}

# The steered warning arrives after that turn's tool calls.
assistant {
  text   = "Closing out: notes first."
  tokens = 53000
  call "write" {
    args   = { path = "NOTES.md" }
    result = "Wrote NOTES.md."
  }
}

assistant {
  text   = "Notes saved; the migration is ready for review."
  tokens = 53500
}
