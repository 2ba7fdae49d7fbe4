package settings

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Resolved is the policy a command runs and where every part of it came
// from: what the Pi extension's initialize loads for the same directory,
// environment and flags.
type Resolved struct {
	// Settings are the effective settings the policy was loaded from.
	*Settings
	// Policy is the loaded policy; nil when it failed to load.
	Policy *rules.Policy
	// Diagnostics are the load's problems: errors when Policy is nil,
	// otherwise warnings (a user param the policy does not declare).
	Diagnostics rules.Diagnostics
}

// ParamSource is one param of the policy in force: its value, where the
// value came from, and the settings that gave another value and lost.
type ParamSource struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
	// Origin is "default", the policy file that sets it, or the setting
	// that overrides it ("user config FILE", "env NAME", "flag --set").
	Origin string `json:"origin"`
	// Shadowed are settings for this param that a higher layer
	// overrides, lowest first.
	Shadowed []ShadowedValue `json:"shadowed,omitempty"`
}

// ShadowedValue is a setting that does not apply because a higher layer
// sets the same param.
type ShadowedValue struct {
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// Resolve loads the settings o describes and the policy they name, with
// their param overrides. It is the one resolution every command and the
// stdio server's initialize share. An error is a settings problem (a
// config file that cannot be read); a policy that fails to load comes back
// with Policy nil and its Diagnostics.
func Resolve(o Options) (*Resolved, error) {
	s, err := Load(o)
	if err != nil {
		return nil, err
	}
	p, diags := s.LoadPolicy()
	if diags.HasErrors() {
		p = nil
	}
	return &Resolved{Settings: s, Policy: p, Diagnostics: diags}, nil
}

// Source is the policy's file, or "builtin".
func (r *Resolved) Source() string {
	if IsBuiltinName(r.Settings.Policy.Text) {
		return "builtin"
	}
	return r.Settings.Policy.Text
}

// Params lists the policy's params in declaration order with their values
// and origins, and the settings each shadows.
func (r *Resolved) Params() []ParamSource {
	if r.Policy == nil {
		return nil
	}
	out := make([]ParamSource, 0, len(r.Policy.Params))
	for _, prm := range r.Policy.Params {
		ps := ParamSource{Name: prm.Name, Value: valueJSON(prm.Value), Origin: prm.Origin}
		for _, v := range r.Shadowed[prm.Name] {
			ps.Shadowed = append(ps.Shadowed, ShadowedValue{v.Text, v.Origin.String()})
		}
		// A user value that gave way to the project's policy file.
		if v, ok := r.Settings.Params[prm.Name]; ok && v.Origin.Layer == LayerUser && v.Origin.String() != prm.Origin {
			ps.Shadowed = append(ps.Shadowed, ShadowedValue{v.Text, v.Origin.String()})
		}
		out = append(out, ps)
	}
	return out
}

// Header is the line a command prints before its output: which policy,
// from which file and which setting, each param that does not have its
// default with its origin, and the settings that are shadowed:
//
//	policy wipe_memory from .pi/resetpolicy.hcl (project policy); params: warning_runway=20000 (.pi/resetpolicy.hcl); shadowed: warning_runway=9000 (user config ~/.config/resetpolicy/config.yaml)
func (r *Resolved) Header() string {
	var b strings.Builder
	name := r.Settings.Policy.Text
	if r.Policy != nil {
		name = r.Policy.Name
	}
	o := r.Settings.Policy.Origin
	how := o.String()
	if src := r.Source(); src != "builtin" {
		fmt.Fprintf(&b, "policy %s from %s", name, src)
		if o.Where == src {
			how = o.Layer.String()
		}
	} else {
		fmt.Fprintf(&b, "policy %s (built-in)", name)
	}
	fmt.Fprintf(&b, " [%s]", how)
	var set, shadowed []string
	for _, ps := range r.Params() {
		if ps.Origin != "default" {
			set = append(set, fmt.Sprintf("%s=%s (%s)", ps.Name, ps.Value, ps.Origin))
		}
		for _, sh := range ps.Shadowed {
			shadowed = append(shadowed, fmt.Sprintf("%s=%s (%s)", ps.Name, sh.Value, sh.Origin))
		}
	}
	if len(set) == 0 {
		b.WriteString("; params: all defaults")
	} else {
		b.WriteString("; params: " + strings.Join(set, ", "))
	}
	if len(shadowed) > 0 {
		b.WriteString("; shadowed: " + strings.Join(shadowed, ", "))
	}
	return b.String()
}

// ResolvedJSON is the resolution as commands print it under --json.
type ResolvedJSON struct {
	Name   string        `json:"name"`
	Source string        `json:"source"`
	Origin string        `json:"origin"`
	Files  []string      `json:"files"`
	Params []ParamSource `json:"params"`
}

// JSON is the resolution for a --json document.
func (r *Resolved) JSON() ResolvedJSON {
	j := ResolvedJSON{Name: r.Settings.Policy.Text, Source: r.Source(), Origin: r.Settings.Policy.Origin.String(), Files: r.Files, Params: r.Params()}
	if r.Policy != nil {
		j.Name = r.Policy.Name
	}
	if j.Files == nil {
		j.Files = []string{}
	}
	if j.Params == nil {
		j.Params = []ParamSource{}
	}
	return j
}

// Named is the resolution of a policy a command was given by name or path
// (a flag or an argument; where says which): that policy with set's
// overrides (then more's) and nothing from the settings files or the
// environment.
func Named(policy, where string, set map[string]string, more ...rules.Option) *Resolved {
	var (
		p     *rules.Policy
		diags rules.Diagnostics
	)
	_, builtin := policies.Source(policy)
	if _, err := os.Stat(policy); builtin || IsBuiltinName(policy) && err != nil {
		p, diags = policies.Load(policy, set, more...)
	} else {
		opts := append([]rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names), rules.WithSet(set, "--set")}, more...)
		p, diags = rules.LoadFile(policy, opts...)
	}
	if diags.HasErrors() {
		p = nil
	}
	r := Describe(policy, where, set, p)
	r.Diagnostics = diags
	return r
}

// Describe is the resolution of a policy a command loaded itself (with
// overrides of its own, such as a scenario's): p, named by where, with
// set's --set overrides.
func Describe(policy, where string, set map[string]string, p *rules.Policy) *Resolved {
	s := &Settings{Policy: Value{Text: policy, Origin: Origin{LayerFlag, where}}, Params: map[string]Value{}, Shadowed: map[string][]Value{}}
	for n, v := range set {
		s.Params[n] = Value{Text: v, Origin: Origin{LayerFlag, "--set"}}
	}
	return &Resolved{Settings: s, Policy: p}
}

func valueJSON(v cty.Value) json.RawMessage {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return json.RawMessage("null")
	}
	if v.Type() == cty.Number {
		// cty writes a number with big.Float's shortest decimal at 512
		// bits, a hundred thousand instructions each: a third of a
		// million of serve's start went on the default's three. An
		// integer is its digits (TestValueJSONIsCtyJSON).
		bf := v.AsBigFloat()
		if i, acc := bf.Int64(); acc == big.Exact && (i != 0 || !bf.Signbit()) {
			return strconv.AppendInt(nil, i, 10)
		}
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
