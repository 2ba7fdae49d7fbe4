package lang

import (
	"reflect"
	"testing"

	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/types"
)

// TestNewConfigIsCreateNew: the copied configuration is expr's default one,
// field for field, and the maps expr's options write into are its own, so
// one config's functions never show in another's.
func TestNewConfigIsCreateNew(t *testing.T) {
	a, b := newConfig(), newConfig()
	if !reflect.DeepEqual(a, conf.CreateNew()) {
		t.Fatalf("newConfig differs from conf.CreateNew:\n%+v\n%+v", a, conf.CreateNew())
	}
	a.Functions["f"], a.Disabled["f"], a.ConstFns["f"] = nil, true, reflect.Value{}
	if len(b.Functions) != 0 || len(b.Disabled) != 0 || len(b.ConstFns) != 0 {
		t.Fatal("configs share a map that options write into")
	}
	if len(a.Builtins) == 0 {
		t.Fatal("no builtins")
	}
}

// TestExprTypeIsGoType: the checker sees each of the language's types as
// the Go type it is evaluated as, and anything else as any (not nil).
func TestExprTypeIsGoType(t *testing.T) {
	for _, typ := range []Type{Bool, Int, Float, String, ListNum, ListStr, Object} {
		if got := exprType(typ).Nature().Type; got != goType(typ) {
			t.Errorf("%v: the checker sees %v, not %v", typ, got, goType(typ))
		}
	}
	for _, typ := range []Type{Any, Invalid} {
		if got := exprType(typ); got != types.Any {
			t.Errorf("%v: the checker sees %v, not any", typ, got)
		}
	}
}

// TestConfigIsPerShape: checker configurations are shared between Envs
// of one shape, and only between them. Each pair differs in one thing the
// checker sees (a name's type, a namespace allowed); each Env of a pair
// gets its own configuration, and a copy of an Env the same one.
func TestConfigIsPerShape(t *testing.T) {
	top := func(typ Type) []Binding { return []Binding{{Name: "shape_top", Prog: &Program{Type: typ}}} }
	cases := []struct {
		name string
		a, b Env
	}{
		{"event fact's type", Env{Event: []Field{{Name: "shape_x", Type: Int}}}, Env{Event: []Field{{Name: "shape_x", Type: String}}}},
		{"state slot's type", Env{State: []Field{{Name: "shape_x", Type: Int}}}, Env{State: []Field{{Name: "shape_x", Type: String}}}},
		{"param's type", Env{Params: []Const{{Name: "shape_x", Type: Float}}}, Env{Params: []Const{{Name: "shape_x", Type: String}}}},
		{"message's type", Env{Messages: []Const{{Name: "shape_x", Type: Int}}}, Env{Messages: []Const{{Name: "shape_x", Type: String}}}},
		{"derived value's type", Env{Top: top(Int)}, Env{Top: top(String)}},
		{"event namespace", Env{Event: []Field{{Name: "shape_y", Type: Int}}}, Env{Event: []Field{{Name: "shape_y", Type: Int}}, NoEvent: true}},
		{"state namespace", Env{State: []Field{{Name: "shape_y", Type: Int}}}, Env{State: []Field{{Name: "shape_y", Type: Int}}, NoState: true}},
		{"namespace of a name", Env{Event: []Field{{Name: "shape_z", Type: Int}}}, Env{State: []Field{{Name: "shape_z", Type: Int}}}},
		{"message or derived value", Env{Messages: []Const{{Name: "shape_v", Type: String}}}, Env{Top: []Binding{{Name: "shape_v", Prog: &Program{Type: String}}}}},
		{"namespace of a name, the other forbidden", Env{Event: []Field{{Name: "shape_w", Type: Int}}, NoState: true}, Env{State: []Field{{Name: "shape_w", Type: Int}}, NoEvent: true}},
	}
	for _, c := range cases {
		a, b, again := c.a, c.b, c.a
		if config(&a) == config(&b) {
			t.Errorf("%s: Envs that differ share a checker configuration", c.name)
		}
		if config(&again) != config(&a) {
			t.Errorf("%s: two Envs of one shape were configured twice", c.name)
		}
	}
}

// TestCheckerEventIsWhatTheCheckerSees: Envs of different events that
// give the checker one view of the event namespace share a configuration,
// and an Env without that view has its own.
func TestCheckerEventIsWhatTheCheckerSees(t *testing.T) {
	view := []Field{{Name: "shared_x", Type: Int}, {Name: "shared_y", Type: String}}
	a := Env{Event: view[:1], CheckerEvent: view}
	b := Env{Event: view[1:], CheckerEvent: view}
	c := Env{Event: view[:1]}
	if config(&a) != config(&b) {
		t.Error("two events with one checker view were configured apart")
	}
	if config(&a) == config(&c) {
		t.Error("an event without the wider view shares its configuration")
	}
}
