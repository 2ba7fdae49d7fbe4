# The team's own runs; the built-in's runs cover the rules it inherits.
policy = "resetpolicy.hcl"

run "a model switch tells the user" {
  event "model_select" {
    model = "big-model"
    expect {
      rules   = ["model_switch_notice"]
      effects = [{ effect = "notify", level = "info", text = "Model switched: the reset thresholds now follow its context window." }]
    }
  }
}

run "a wipe while switched off says how to switch on" {
  event "tool" {
    name    = "wipe_memory"
    enabled = false
    expect {
      rules   = ["tool_refused_while_disabled"]
      effects = [{ effect = "reply", text = "wipe_memory is switched off in this session; nothing was reset. Switch it back on with /resetpolicy on." }]
    }
  }
}

run "the warning goes out at reserve + 20000" {
  event "request" {
    tokens = 163616
    expect {
      effects = [{ effect = "inject", message = "checkpoint_warning", deliver = "request" }]
    }
  }
}
