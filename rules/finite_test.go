package rules_test

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// A param value of NaN or ±Inf (or too large for a float64) is refused
// where it enters, naming where it came from.
func TestParamValuesAreFinite(t *testing.T) {
	for _, c := range []struct{ param, raw, origin, want string }{
		{"runway", "NaN", "--set", "finite number"},
		{"runway", "nan", "env RESETPOLICY_PARAM_RUNWAY", "finite number"},
		{"runway", "Inf", "--set", "must be a finite number, not +Inf"},
		{"runway", "+inf", "env RESETPOLICY_PARAM_RUNWAY", "must be a finite number"},
		{"runway", "-Infinity", "--set", "a param must be a finite number"},
		{"runway", "1e400", "user config c.yaml", "must be a finite number, not 1e+400"},
		{"delays", "[5000, 1e999]", "--set", "must be a finite number"},
	} {
		t.Run(c.param+"="+c.raw, func(t *testing.T) {
			_, diags := rules.Load(rules.Source{Name: "small.hcl", Bytes: []byte(small)},
				rules.WithOverrides(rules.Override{Name: c.param, Raw: c.raw, Origin: c.origin}))
			if !diags.HasErrors() {
				t.Fatal("accepted")
			}
			msg := diags.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.origin+" "+c.param+"="+c.raw) {
				t.Fatalf("want %q and the origin in:\n%s", c.want, msg)
			}
		})
	}
	// In a file: a use block's override and a param default.
	_, diags := rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte("use \"wipe_memory\" {\n  warning_runway = 1e400\n}\n")}, rules.WithBuiltins(policies.Source))
	if !diags.HasErrors() || diags.Diagnostics[0].Summary != "Number not finite" || diags.Diagnostics[0].Subject.Start.Line != 2 {
		t.Fatalf("use block: %s", diags.Error())
	}
	_, diags = rules.Load(rules.Source{Name: "p.hcl", Bytes: []byte(strings.Replace(small, "default = 100", "default = 1e999", 1))})
	if !diags.HasErrors() || diags.Diagnostics[0].Summary != "Number not finite" {
		t.Fatalf("default: %s", diags.Error())
	}
	// Large but finite stays a number.
	if _, diags := rules.Load(rules.Source{Name: "small.hcl", Bytes: []byte(small)}, rules.WithOverrides(rules.Override{Name: "runway", Raw: "1e300", Origin: "--set"})); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
}
