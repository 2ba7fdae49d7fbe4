package lang

import (
	"reflect"
	"testing"

	"github.com/expr-lang/expr/conf"
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
