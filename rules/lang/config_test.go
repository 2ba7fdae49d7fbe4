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
