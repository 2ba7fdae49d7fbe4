package sim

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Overrides turns a scenario header's `set` into param overrides whose
// diagnostics point into the scenario file.
func Overrides(sc *scenario.Scenario) []rules.Override {
	if sc == nil {
		return nil
	}
	out := make([]rules.Override, 0, len(sc.Set))
	for _, p := range sc.Set {
		r, nr := p.Range, p.NameRange
		out = append(out, rules.Override{Name: p.Name, Value: p.Value, Origin: sc.File, Range: &r, NameRange: &nr})
	}
	return out
}

// PolicyName is the policy a simulation runs: the one asked for, else the
// scenario's, else the built-in default.
func PolicyName(asked string, sc *scenario.Scenario) string {
	switch {
	case asked != "":
		return asked
	case sc != nil && sc.Policy != "":
		return scenarioPolicy(sc)
	}
	return policies.Default
}

// scenarioPolicy is the scenario's policy: a built-in's name, or a file
// path relative to the scenario file, as a test file's policy is.
func scenarioPolicy(sc *scenario.Scenario) string {
	name := sc.Policy
	if _, ok := policies.Source(name); ok || !strings.ContainsAny(name, `/\.`) || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(sc.File), name)
}

// LoadPolicy loads a built-in by name or a policy file by path, with the
// scenario's overrides and then set (NAME=VALUE text, as --set gives it;
// later overrides win). It reads the policy file it is given and nothing
// else.
func LoadPolicy(name string, sc *scenario.Scenario, set map[string]string) (*rules.Policy, rules.Diagnostics) {
	opts := []rules.Option{rules.WithOverrides(Overrides(sc)...), rules.WithSet(set, "--set")}
	var (
		p     *rules.Policy
		diags rules.Diagnostics
	)
	if _, ok := policies.Source(name); ok || !strings.ContainsAny(name, `/\.`) {
		p, diags = policies.Load(name, nil, opts...)
	} else {
		p, diags = rules.LoadFile(name, append([]rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names)}, opts...)...)
	}
	if sc != nil && diags.HasErrors() {
		if diags.Sources == nil {
			diags.Sources = map[string][]byte{}
		}
		diags.Sources[sc.File] = sc.Source
		// A policy the scenario names that cannot be read is the scenario's
		// line to fix.
		if sc.Policy != "" && name == scenarioPolicy(sc) {
			for _, d := range diags.Diagnostics {
				// A file that cannot be read has no line of its own to blame
				// (at most its 1:1).
				// A param override (--set) that fails names its flag and is
				// not the policy line's fault.
				if d.Subject == nil && !strings.HasPrefix(d.Detail, "--set ") || d.Subject != nil && strings.HasPrefix(d.Summary, "Cannot read") && d.Subject.Filename == name {
					d.Subject = &sc.PolicyRange
					d.Detail = fmt.Sprintf("the scenario's policy %q (relative to the scenario file: %s): %s", sc.Policy, name, d.Detail)
				}
			}
		}
	}
	return p, diags
}
