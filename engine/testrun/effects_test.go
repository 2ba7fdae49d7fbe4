package testrun

import (
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

func spec(name string, args ...any) testfile.EffectSpec {
	s := testfile.EffectSpec{Name: name}
	for i := 0; i+1 < len(args); i += 2 {
		s.Args = append(s.Args, testfile.ArgSpec{Name: args[i].(string), Value: args[i+1]})
	}
	return s
}

func got(name string, args ...any) effect {
	e := effect{name: name}
	for i := 0; i+1 < len(args); i += 2 {
		e.args = append(e.args, arg{name: args[i].(string), value: args[i+1]})
	}
	return e
}

func TestMatches(t *testing.T) {
	tests := []struct {
		name string
		spec testfile.EffectSpec
		got  effect
		want bool
	}{
		{"name only", spec("reply"), got("reply", "text", "ok"), true},
		{"other name", spec("reply"), got("notify"), false},
		{"arg equal", spec("commit_reset", "continue", true), got("commit_reset", "continue", true, "stop", false), true},
		{"arg differs", spec("commit_reset", "continue", true), got("commit_reset", "continue", false), false},
		{"arg absent", spec("commit_reset", "stop", true), got("commit_reset", "continue", true), false},
		{"numbers by value", spec("compact", "attempt", 2.0), got("compact", "attempt", int64(2)), true},
		{"number is not a string", spec("compact", "attempt", 2.0), got("compact", "attempt", "2"), false},
	}
	for _, tt := range tests {
		if m := matches(tt.spec, tt.got); m != tt.want {
			t.Errorf("%s: matches = %v, want %v", tt.name, m, tt.want)
		}
	}
}

func TestMatchContain(t *testing.T) {
	effects := []effect{got("reply"), got("notify", "level", "info"), got("commit_reset", "continue", true)}
	tests := []struct {
		name    string
		specs   []testfile.EffectSpec
		want    bool
		missing int
	}{
		{"empty", nil, true, 0},
		{"in order with gaps", []testfile.EffectSpec{spec("reply"), spec("commit_reset")}, true, 0},
		{"out of order", []testfile.EffectSpec{spec("commit_reset"), spec("reply")}, false, 1},
		{"absent", []testfile.EffectSpec{spec("stop")}, false, 1},
		{"same effect twice needs two", []testfile.EffectSpec{spec("reply"), spec("reply")}, false, 1},
	}
	for _, tt := range tests {
		missing, ok := matchContain(tt.specs, effects)
		if ok != tt.want || len(missing) != tt.missing {
			t.Errorf("%s: ok %v missing %d, want %v and %d", tt.name, ok, len(missing), tt.want, tt.missing)
		}
	}
	if !matchExact(nil, nil) || matchExact(nil, effects) {
		t.Error("matchExact: [] must equal no effects only")
	}
}

// Decisions' slices are reused by the next Decide: the runner keeps copies.
func TestCopyEffectsOutlivesDecision(t *testing.T) {
	in := []engine.Effect{{Name: "reply", Args: []engine.Arg{{Name: "text", Value: "a"}}}}
	out := copyEffects(in)
	in[0].Name, in[0].Args[0].Value = "notify", "b"
	if out[0].name != "reply" || out[0].args[0].value != "a" {
		t.Errorf("copy changed with its source: %+v", out)
	}
}

func TestRenderEffects(t *testing.T) {
	e := []effect{got("commit_reset", "continue", true), got("reply", "text", "a <b> & \"c\"")}
	want := `[{"effect":"commit_reset","continue":true},{"effect":"reply","text":"a <b> & \"c\""}]`
	if s := renderEffects(e); s != want {
		t.Errorf("renderEffects = %s, want %s", s, want)
	}
	if s := renderSpecs([]testfile.EffectSpec{spec("compact", "attempt", 2.0)}); s != `[{"effect":"compact","attempt":2}]` {
		t.Errorf("renderSpecs = %s", s)
	}
	if s := renderEffects(nil); s != "[]" {
		t.Errorf("no effects render as %s", s)
	}
}
