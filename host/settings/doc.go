// Package settings resolves which policy a host runs and how it is tuned:
// the policy (a built-in name or a policy file), param overrides and the
// decision log path, each with the source it came from.
//
// # Precedence
//
// From lowest to highest, later layers win key by key (and, for params,
// param by param):
//
//  1. built-in defaults: policy wipe_memory, no overrides, no decision log;
//  2. the user config file, $XDG_CONFIG_HOME/resetpolicy/config.yaml
//     (os.UserConfigDir), or the file named by RESETPOLICY_CONFIG or --config;
//  3. the project, only when the host says it is trusted: the project
//     policy file .resetpolicy.hcl or .pi/resetpolicy.hcl (it becomes the
//     policy, and the values it sets win over the user config's: a user
//     param yields to the project file's value and is reported as
//     shadowed), then the project config file .resetpolicy.yaml or
//     .pi/resetpolicy.yaml. The files at the project's root are read by
//     every host and the CLI, so a team that runs Pi and opencode writes
//     its policy once; the .pi/ ones are where Pi projects have kept them.
//     Two of one kind are an error naming both;
//  4. the environment: RESETPOLICY_POLICY, RESETPOLICY_DECISION_LOG and
//     RESETPOLICY_PARAM_<NAME> (RESETPOLICY_PARAM_WARNING_RUNWAY=8192);
//  5. flags: --policy, --set NAME=VALUE, --decision-log.
//
// A config file is YAML:
//
//	policy: wipe_memory          # or a policy file, relative to this file
//	params:
//	  warning_runway: 8192
//	decision_log: ~/.local/state/resetpolicy/decisions.jsonl
//
// # One resolution
//
// Resolve is the resolution the stdio server's initialize and every
// command that takes a policy share: Load, then LoadPolicy, and the
// origin of each param in force with the settings it shadows (Params,
// Header, JSON). Named is a policy a command was given explicitly.
//
// # Where paths may lead
//
// A trusted project's settings name files only inside the project
// directory, every symlink resolved: its policy file, its config file and
// the policy file and decision log that config names. The user's config,
// the environment and flags may name any path. Config files are read only
// when they are regular files of at most MaxConfigBytes.
//
// # What it must not do
//
// It reads configuration and nothing else: it does not load or compile a
// policy beyond calling package rules, decides nothing, and writes only
// when asked to persist a param (SaveParam, ClearParam). The environment
// and flags are passed in, so tests and the server control them.
package settings
