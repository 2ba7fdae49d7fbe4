package verify

// consistent rejects fact combinations a host following the contract
// never sends, so a counterexample is a session that can happen. The Pi
// host (host/pi/src/hooks.ts onTurnEnd) gives a turn_end an error kind
// exactly when its outcome is an error, and flags a synthetic abort only
// on an aborted turn.
func consistent(facts map[string]any) bool {
	if facts["event"] != "turn_end" {
		return true
	}
	outcome, _ := facts["outcome"].(string)
	if outcome == "" {
		outcome = "completed"
	}
	errKind, _ := facts["error"].(string)
	if (outcome == "error") != (errKind != "") {
		return false
	}
	if synthetic, _ := facts["synthetic_abort"].(bool); synthetic && outcome != "aborted" {
		return false
	}
	return true
}
