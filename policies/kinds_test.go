package policies_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// The built-ins declare what their decisions mean, so that replay, the
// report and the charts count reminders, warnings, checkpoints, resets
// and hard reserves from the declaration: every message and rule that
// has a kind, and no other.
func TestBuiltinsDeclareDecisionKinds(t *testing.T) {
	want := map[string][]string{
		// 000: "The early reminder is staged once per window when remaining
		// budget reaches reserve + reminderMarginTokens. The final close-out
		// warning is staged/attached at reserve + WARNING_RUNWAY_TOKENS";
		// "Budget and idle manual requests use the same hidden checkpoint
		// text"; "Hard reserve | Independent safety path: … commit a boundary
		// at turn_end"; every other boundary the policy commits is a reset.
		"wipe_memory": {
			"message budget_reminder reminder",
			"message checkpoint_warning warning",
			"message manual_checkpoint_warning warning",
			"rule settle_commits_manual_close_out reset",
			"rule settle_manual_overflow_commits_without_continuation reset",
			"rule settle_overflow_recovery_gets_one_attempt reset",
			"rule settle_stop_pending_retries_construction_in_old_window reset",
			"rule turn_end_commits_tool_request reset",
			"rule turn_end_hard_reserve_commits hard_reserve",
			"rule turn_end_manual_hard_reserve_commits_without_continuation hard_reserve",
			"rule turn_end_manual_overflow_with_queued_input_clears_before_it reset",
			"rule turn_end_overflow_with_queued_input_recovers_before_it reset",
		},
		// 001: "The final checkpoint warning is steered earlier from the
		// context hook"; "Build the reset boundary immediately and return it."
		"new_context": {
			"message checkpoint_warning warning",
			"rule compaction_returns_reset_boundary_at_once reset",
		},
		// 002: "Notice and warning messages start a model turn … Force creates
		// a checkpoint instead of a notice"; "It compacts at the active force
		// limit" — the force checkpoint is the hard reserve; a requested
		// checkpoint is a checkpoint.
		"autocompacter": {
			"message notice reminder",
			"message warning warning",
			"rule autocompacter_when_idle_checkpoints_now checkpoint",
			"rule force_checkpoint_at_active_limit hard_reserve",
			"rule requested_checkpoint_after_turn_and_tool_calls checkpoint",
			"rule threshold_compaction_at_force_limit_writes_the_checkpoint checkpoint",
		},
	}
	for _, name := range policies.Names() {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		var got []string
		for _, m := range p.Messages {
			if m.Kind != "" {
				got = append(got, "message "+m.Name+" "+string(m.Kind))
			}
		}
		for _, r := range p.Rules {
			if r.Kind != "" {
				got = append(got, "rule "+r.Name+" "+string(r.Kind))
			}
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want[name], "\n") {
			t.Errorf("%s declares\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want[name], "\n"))
		}
		if d := rules.UndeclaredKinds(p); len(d) > 0 {
			t.Errorf("%s: %s", name, d.Error())
		}
	}
}
