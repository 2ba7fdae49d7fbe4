package replay_test

import (
	"slices"
	"strings"
	"testing"
)

// Without the assumption the report says what a replay cannot know; with
// --assume-obeys-within 2 the agent calls wipe_memory two turns after the
// first warning, and the policy resets there, before the hard reserve.
func TestAssumeObeysWithin(t *testing.T) {
	plain := replayFile(t, config(t, "wipe_memory", nil, 60000), "pi-faux-read.jsonl", "")
	if plain.FirstWarning == nil || plain.AssumedCloseOuts != 0 {
		t.Fatalf("warning %+v, close-outs %d", plain.FirstWarning, plain.AssumedCloseOuts)
	}
	if !slices.ContainsFunc(plain.Notes, func(n string) bool { return strings.Contains(n, "cannot show the agent acting on it") }) {
		t.Errorf("no note on what the replay cannot know: %q", plain.Notes)
	}
	cfg := config(t, "wipe_memory", nil, 60000)
	cfg.ObeysWithin = 2
	rep := replayFile(t, cfg, "pi-faux-read.jsonl", "")
	if rep.AssumedCloseOuts != 1 {
		t.Fatalf("%d assumed close-outs, want 1", rep.AssumedCloseOuts)
	}
	warn := rep.FirstWarning.Turn
	var tool, reset int
	for _, d := range rep.Decisions {
		if d.Event == "tool" && tool == 0 {
			tool = d.Turn
		}
		if reset == 0 && slices.ContainsFunc(d.Effects, func(e map[string]any) bool { return e["effect"] == "commit_reset" }) {
			reset = d.Turn
		}
	}
	if tool != warn+2 || reset != warn+2 {
		t.Fatalf("warning at turn %d, tool call at %d, reset at %d; want both at %d", warn, tool, reset, warn+2)
	}
	if rep.FirstHardReserve != nil && rep.FirstHardReserve.Turn <= reset {
		t.Errorf("hard reserve at turn %d, before the assumed close-out at %d", rep.FirstHardReserve.Turn, reset)
	}
}
