package testrun

import (
	"bytes"
	"encoding/json"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// effect is a copy of an engine effect that outlives the decision.
type effect struct {
	name string
	args []arg
}

type arg struct {
	name  string
	value any
}

func copyEffects(in []engine.Effect) []effect {
	out := make([]effect, len(in))
	for i, e := range in {
		c := effect{name: e.Name, args: make([]arg, len(e.Args))}
		for j, a := range e.Args {
			c.args[j] = arg{name: a.Name, value: a.Value}
		}
		out[i] = c
	}
	return out
}

// matches reports whether e has spec's name and every argument spec lists,
// with an equal value.
func matches(spec testfile.EffectSpec, e effect) bool {
	if spec.Name != e.name {
		return false
	}
	for _, want := range spec.Args {
		found := false
		for _, got := range e.args {
			if got.name == want.Name {
				found = valuesEqual(want.Value, got.value)
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func matchExact(specs []testfile.EffectSpec, got []effect) bool {
	if len(specs) != len(got) {
		return false
	}
	for i := range specs {
		if !matches(specs[i], got[i]) {
			return false
		}
	}
	return true
}

// matchContain checks that specs match effects of got in order, with any
// effects between them; it returns the specs left unmatched.
func matchContain(specs []testfile.EffectSpec, got []effect) ([]testfile.EffectSpec, bool) {
	i := 0
	for _, e := range got {
		if i < len(specs) && matches(specs[i], e) {
			i++
		}
	}
	return specs[i:], i == len(specs)
}

// valuesEqual compares expected and actual scalar values; numbers compare
// by value whatever their Go type.
func valuesEqual(want, got any) bool {
	wf, wok := number(want)
	gf, gok := number(got)
	if wok || gok {
		return wok && gok && wf == gf
	}
	return want == got
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// renderEffects writes effects as JSON, arguments in the engine's order:
// [{"effect":"commit_reset","continue":true}].
func renderEffects(effects []effect) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range effects {
		if i > 0 {
			b.WriteByte(',')
		}
		writeEffect(&b, e.name, len(e.args), func(j int) (string, any) { return e.args[j].name, e.args[j].value })
	}
	b.WriteByte(']')
	return b.String()
}

// renderSpecs writes expected effects as JSON, arguments in the test
// file's order.
func renderSpecs(specs []testfile.EffectSpec) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range specs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeEffect(&b, s.Name, len(s.Args), func(j int) (string, any) { return s.Args[j].Name, s.Args[j].Value })
	}
	b.WriteByte(']')
	return b.String()
}

func writeEffect(b *bytes.Buffer, name string, n int, arg func(int) (string, any)) {
	b.WriteString(`{"effect":`)
	b.WriteString(jsonText(name))
	for j := 0; j < n; j++ {
		k, v := arg(j)
		b.WriteByte(',')
		b.WriteString(jsonText(k))
		b.WriteByte(':')
		b.WriteString(jsonText(v))
	}
	b.WriteByte('}')
}

// jsonText renders v as compact JSON without HTML escaping.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}
