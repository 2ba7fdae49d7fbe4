package testfile

import (
	"strings"
	"testing"
)

// A failing assert shows the values its condition read.
func TestAssertReads(t *testing.T) {
	env := AssertEnv([]any{
		map[string]any{"event": "request", "rules": []any{"warn"}, "effects": []any{map[string]any{"effect": "inject"}}, "state": map[string]any{"phase": "close-out"}},
		map[string]any{"event": "turn_end", "rules": []any{}, "effects": []any{}, "state": map[string]any{"phase": "close-out"}},
	}, map[string]any{"phase": "close-out", "failures": 2})
	tests := []struct {
		cond string
		want []string
	}{
		{`state.failures == 3`, []string{"state.failures = 2"}},
		{`len(last.effects) == 1 && last.rules == ["commit"]`, []string{"last.effects = []", "len(last.effects) = 0", `last.rules = []`}},
		{`last.effects[1].stop == true`, []string{"last.effects = []"}},
		{`decisions[0].state.phase == "none"`, []string{`decisions[0].state.phase = "close-out"`}},
		{`all(decisions, {.event == "request"})`, []string{"decisions = [", `all(decisions, .event == "request") = false`}},
	}
	for _, tt := range tests {
		got := (&Assert{Condition: tt.cond}).Reads(env)
		if len(got) != len(tt.want) {
			t.Errorf("%s: reads %q, want %q", tt.cond, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tt.want[i]) {
				t.Errorf("%s: read %d = %q, want %q…", tt.cond, i, got[i], tt.want[i])
			}
		}
	}
}
