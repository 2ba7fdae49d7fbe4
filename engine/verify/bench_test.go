package verify_test

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/policies"
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
