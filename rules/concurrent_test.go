package rules_test

import (
	"sync"
	"testing"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Loads run on several goroutines at once (the language server's checks,
// replay's and report's workers): they share the expression checker's
// configuration of each environment's shape, which expr's checker writes
// into as it checks. go test -race ./rules catches a load that is not safe
// beside another.
func TestLoadsRunConcurrently(t *testing.T) {
	src := rules.Source{Name: "team.hcl", Bytes: []byte("use \"wipe_memory\" {\n  warning_runway = 9000\n}\n\ngroup \"team\" {\n  rule \"t\" {\n    on   = \"request\"\n    when = \"event.tokens > param.warning_runway && state.request == 'none'\"\n  }\n}\n")}
	var wg sync.WaitGroup
	errs := make([]string, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := policies.Names()[i%len(policies.Names())]
			if i%2 == 0 {
				if _, d := rules.Load(src, rules.WithBuiltins(policies.Source)); d.HasErrors() {
					errs[i] = d.Error()
				}
				return
			}
			if _, d := policies.Load(name, nil); d.HasErrors() {
				errs[i] = d.Error()
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("load %d: %s", i, e)
		}
	}
}
