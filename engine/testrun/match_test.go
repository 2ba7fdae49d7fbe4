package testrun

import "testing"

// -run reads as go test's: one unanchored expression per level.
func TestRunPattern(t *testing.T) {
	tests := []struct {
		expr, file, run string
		want            bool
	}{
		{"/overflow", "wipe_memory.test.hcl", "an overflow tells the user", true},
		{"/overflow", "wipe_memory.test.hcl", "a reset", false},
		{"wipe", "wipe_memory.test.hcl", "anything", true},
		{"memory.test", "wipe_memory.test.hcl", "anything", true},
		{"new_context", "wipe_memory.test.hcl", "anything", false},
		{"starting state", "tiny.test.hcl", "a starting state", true}, // no slash: the file's name or the run's
		{"params|starting", "tiny.test.hcl", "params apply", true},
		{"wipe_memory.test.hcl/story", "wipe_memory.test.hcl", "the whole story", true},
		{"wipe_memory.test.hcl/story", "new_context.test.hcl", "the whole story", false},
		{"/(a|b/c)", "f.test.hcl", "b/c", true}, // a slash in parentheses is not a level
		{"/[/]x", "f.test.hcl", "a/x", true},
		{"//x", "f.test.hcl", "x", false}, // a third level: runs have none
		{"", "f.test.hcl", "x", true},
	}
	for _, tt := range tests {
		p, err := ParseRun(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if got := p.Match(tt.file, tt.run); got != tt.want {
			t.Errorf("-run %q on %s/%s = %v, want %v", tt.expr, tt.file, tt.run, got, tt.want)
		}
	}
	if _, err := ParseRun("/("); err == nil {
		t.Error("an unclosed group compiles")
	}
}
