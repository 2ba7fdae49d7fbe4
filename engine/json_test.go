package engine_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// FuzzAppendJSONString checks the allocation-free string encoder against
// encoding/json.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quo\"te\\", "\x00\x1f\n\r\t", "<a&b>", "\u2028\u2029", "é€😀", "\xff\xfe", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := engine.AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestEffectJSON pins the effect form of the contract: the name first, then
// the arguments in order, integers without a fraction.
func TestEffectJSON(t *testing.T) {
	e := engine.Effect{Name: "compact", Args: []engine.Arg{{Name: "attempt", Value: 3.0}, {Name: "why", Value: "a\"b"}, {Name: "ok", Value: true}}}
	got, _ := json.Marshal([]engine.Effect{e})
	if want := `[{"effect":"compact","attempt":3,"why":"a\"b","ok":true}]`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
