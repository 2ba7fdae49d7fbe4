package verify_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

func windows(r *verify.Result) (how string, values []any) {
	for _, s := range r.Sampling {
		if s.Fact == "context_window" {
			return s.How, s.Values
		}
	}
	return "", nil
}

// new_context reads the window only as what remains of it, so its five
// declared windows are explored through the largest one's remaining
// budgets, and the report says so; the same policy with a rule for small
// windows has each window explored as it is.
func TestWindowsByRemainingBudget(t *testing.T) {
	how, vals := windows(verify.Check(load(t, "new_context"), verify.Options{}))
	if len(vals) != 1 || vals[0] != 1e6 || !strings.Contains(how, "only as context_window - tokens") {
		t.Errorf("new_context's windows: %v, %q; want the 1M window, saying why", vals, how)
	}
	src, _ := policies.Source("new_context")
	const at = `value = "event.reserve + param.warning_runway"`
	text := string(src.Bytes)
	if strings.Count(text, at) != 1 {
		t.Fatalf("new_context.hcl holds %q %d times, want once", at, strings.Count(text, at))
	}
	text = strings.Replace(text, at, `value = "event.context_window < 64000 ? event.reserve : event.reserve + param.warning_runway"`, 1)
	p, diags := rules.Load(rules.Source{Name: "small_windows.hcl", Bytes: []byte(text)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	how, vals = windows(verify.Check(p, verify.Options{}))
	if len(vals) != 5 || strings.Contains(how, "only as") {
		t.Errorf("a policy with a rule for small windows: windows %v, %q; want all five explored", vals, how)
	}
}
