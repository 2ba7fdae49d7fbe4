package verify

import "github.com/resetpolicy/resetpolicy/rules"

// CheckEveryInstance is Check deciding and checking every event instance
// on its own, without the classes of instances that stand in for them.
func CheckEveryInstance(p *rules.Policy, opts Options) *Result {
	opts.everyInstance = true
	return Check(p, opts)
}
