package verify

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
)

func BenchmarkCheckWipeMemory(b *testing.B) {
	p, d := policies.Load("wipe_memory", nil)
	if d.HasErrors() {
		b.Fatal(d.Error())
	}
	for b.Loop() {
		Check(p, Options{})
	}
}
