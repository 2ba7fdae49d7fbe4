package verify_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// BenchmarkCheck verifies each built-in once per op: the time `resetpolicy
// verify NAME` spends exploring.
func BenchmarkCheck(b *testing.B) {
	for _, name := range policies.Names() {
		p := load(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if r := verify.Check(p, verify.Options{}); !r.OK() {
					b.Fatal(r.Findings)
				}
			}
		})
	}
}

// teamPolicy is wipe_memory extended with n rules of a team's own, each
// answering one tool of its own by moving one two-valued slot: the shape of
// a large team policy.
func teamPolicy(n int) string {
	var b strings.Builder
	b.WriteString("use \"wipe_memory\" {}\n\nslot \"team_mode\" {\n  values = [\"plain\", \"strict\"]\n}\n\ngroup \"team\" {\n")
	for i := range n {
		mode := []string{"plain", "strict"}[i%2]
		fmt.Fprintf(&b, "  rule \"team_tool_%d\" {\n    on   = \"tool\"\n    when = \"event.name == 'team_tool_%d'\"\n    to   = { team_mode = %q }\n  }\n", i, i, mode)
	}
	b.WriteString("}\n")
	return b.String()
}

func loadTeam(t testing.TB, n int) *rules.Policy {
	t.Helper()
	p, diags := rules.Load(rules.Source{Name: fmt.Sprintf("team_%d.hcl", n), Bytes: []byte(teamPolicy(n))}, rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// BenchmarkTeam verifies wipe_memory extended with 100 and 1,000 rules of
// a team's own (README: "How long it takes").
func BenchmarkTeam(b *testing.B) {
	for _, n := range []int{100, 1000} {
		p := loadTeam(b, n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			for b.Loop() {
				r := verify.Check(p, verify.Options{})
				b.ReportMetric(float64(r.States), "states")
				b.ReportMetric(float64(r.Transitions), "transitions")
				if !r.OK() {
					b.Fatalf("incomplete %v at %v; findings %v", r.Incomplete, r.Bound, r.Findings)
				}
			}
		})
	}
}

// TestWriteTeamPolicies writes the generated team policies for the
// README's command-line measurement when RESETPOLICY_TEAM_DIR is set.
func TestWriteTeamPolicies(t *testing.T) {
	dir := os.Getenv("RESETPOLICY_TEAM_DIR")
	if dir == "" {
		t.Skip("RESETPOLICY_TEAM_DIR not set")
	}
	for _, n := range []int{100, 1000} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("team_%d.hcl", n)), []byte(teamPolicy(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
