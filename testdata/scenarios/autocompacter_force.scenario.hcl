# Seed 002, "Automatic force": "The extension checks estimated token use at
# each completed turn. It compacts at the active force limit. A turn with tool
# results or pending messages continues after compaction. A completed response
# without pending work does not create an extra model turn. The extension
# waits 10 seconds after a checkpoint." "Notice and warning messages start a
# model turn. The extension sends each level once per cycle." "The active
# force limit is the smallest of ... 80% of the model context window."
#
# A 200000-token window: force at 160000, warning at 130370, notice at 106666.

scenario "Notice, warning and force" {
  policy = "autocompacter"
}

user "Port the whole test suite." {}

assistant {
  text   = "Porting package one."
  tokens = 100000
  call "edit" {
    args   = { path = "a/a_test.go" }
    result = "Applied 1 edit."
  }
}

# Past the notice level: a notice starts the next turn (once per cycle).
assistant {
  text   = "Porting package two."
  tokens = 110000
  call "edit" {
    args   = { path = "b/b_test.go" }
    result = "Applied 1 edit."
  }
}

assistant {
  text   = "Noted. Porting package three."
  tokens = 112000
  call "edit" {
    args   = { path = "c/c_test.go" }
    result = "Applied 1 edit."
  }
}

# Past the warning level.
assistant {
  text   = "Porting package four."
  tokens = 135000
  call "edit" {
    args   = { path = "d/d_test.go" }
    result = "Applied 1 edit."
  }
}

# Past the force limit with tool results: checkpoint, then continue.
assistant {
  text   = "Porting package five."
  tokens = 162000
  call "edit" {
    args   = { path = "e/e_test.go" }
    result = "Applied 1 edit."
  }
}

assistant {
  text   = "Resuming from the summary: package six."
  tokens = 20000
  call "edit" {
    args   = { path = "f/f_test.go" }
    result = "Applied 1 edit."
  }
}

# Within the 10 s cooldown, but the resumed turn's edit was new work, which
# ended the cooldown ("This cooldown prevents repeated requests without new
# work"): the context is past the force limit again, and a checkpoint is
# taken at once.
wait "5s" {}

assistant {
  text   = "Package seven, a big one."
  tokens = 165000
  call "edit" {
    args   = { path = "g/g_test.go" }
    result = "Applied 1 edit."
  }
}

wait "11s" {}

# Past the cooldown, a completed answer without pending work: a checkpoint,
# and no extra model turn.
assistant {
  text   = "All packages ported."
  tokens = 166000
}
