package replay

import (
	"strings"
	"testing"
)

// A request over the bound is refused as such, however it ends.
func TestPlotRequestIsBounded(t *testing.T) {
	defer func(n int) { maxPlotRequest = n }(maxPlotRequest)
	maxPlotRequest = 1000
	for _, n := range []int{1000, 5000} {
		huge := `{"protocol":1,"path":"` + strings.Repeat("x", n) + `","sessions":[]}`
		if _, _, err := ReadPlotRequest(strings.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "over 1000 bytes") {
			t.Errorf("a request of %d bytes: %v", len(huge), err)
		}
	}
	if _, _, err := ReadPlotRequest(strings.NewReader(`{"protocol":1,"path":"` + strings.Repeat("x", 900) + `","sessions":[]}`)); err != nil {
		t.Errorf("a request under the bound: %v", err)
	}
}
