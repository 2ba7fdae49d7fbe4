// Package scenario owns the scenario format: an HCL file that scripts one
// agent session for the simulated host (package host/sim) as a story —
// what the user types, what the model answers and with how many tokens,
// which tools it calls, what goes wrong (provider errors, context
// overflow, aborts), which commands the user runs, what waits in the
// steering and follow-up queues, settings and model switches, summary and
// compaction outcomes, clock steps, reopening the session file and
// navigating its tree.
//
// A scenario is a `scenario` header block followed by steps, one block
// each, in the order they happen:
//
//	scenario "A window filled, warned and wiped" {
//	  policy         = "wipe_memory"   # the policy it is written for (--policy wins)
//	  context_window = 200000          # host settings at the start
//	  reserve        = 16384
//	  set            = { warning_runway = 12288 }   # param overrides (--set wins)
//	}
//
//	user "Add input validation to the config loader." {}
//
//	assistant {
//	  text   = "Reading the loader first."
//	  tokens = 120000                  # context tokens the provider reports
//	  call "read" {
//	    args   = { path = "config/load.go" }
//	    result = "package config ..."
//	  }
//	}
//
//	steer "Also cover the YAML path." {}   # typed while the agent streams
//	command "/wipe-memory" {}               # a policy command
//	assistant { error = "overflow" }        # the provider rejects the request
//	wait "10s" {}                           # the clock moves on
//
// Step blocks: user, assistant (with call blocks), steer, follow_up,
// command, compact, toggle, settings, model, wait, summary, compaction,
// reopen, mark and tree. Their attributes are listed in steps.go; the
// decoder rejects anything else with the file, line and column of the
// offending text, as HCL prints diagnostics.
//
// Steps are read in order by the simulated host. A step that only makes
// sense while the agent streams (assistant, steer, follow_up) or while it
// is idle (user, compact, reopen, mark, tree) is checked when the host
// reaches it, not here: the decoder knows the format, not the session.
//
// What it must not do: run anything. It does no I/O beyond reading the
// file it is given, knows no policy and never talks to the engine.
package scenario
