package verify

import (
	"regexp"
	"testing"
)

// TestIsWindowIDIsTheExpression: isWindowID accepts what `^w[0-9]+$`
// matches, and nothing else.
func TestIsWindowIDIsTheExpression(t *testing.T) {
	re := regexp.MustCompile(`^w[0-9]+$`)
	for _, s := range []string{"", "w", "w0", "w12", "W1", "w1a", "xw1", "w-1", "w1\n", "ww1", "w٣", "w0123456789"} {
		if got, want := isWindowID(s), re.MatchString(s); got != want {
			t.Errorf("isWindowID(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
