package engine

import "testing"

// TestLineCacheKeepsTwoOfALength: two strings of one length, written in
// turn, both stay kept (a rule name and an effect name can share one),
// the last written first; a third pushes out the one used less lately.
func TestLineCacheKeepsTwoOfALength(t *testing.T) {
	var c LineCache
	a, b, x := "tool_request_marks_window", "turn_end_commits_request_", "a_third_name_of_length_25"
	kept := func() (string, string) {
		set := c.strs[len(a)%lineCacheSets]
		return set[0].s, set[1].s
	}
	for _, s := range []string{a, b, a, b} {
		c.appendString(nil, s)
	}
	if first, second := kept(); first != b || second != a {
		t.Fatalf("kept %q, %q; want %q, %q", first, second, b, a)
	}
	c.appendString(nil, a)
	c.appendString(nil, x)
	if first, second := kept(); first != x || second != a {
		t.Fatalf("kept %q, %q; want %q, %q", first, second, x, a)
	}
}
