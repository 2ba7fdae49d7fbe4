package settings

import (
	"math"
	"math/big"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// TestValueJSONIsCtyJSON: a param's value is written as cty's JSON
// marshaller writes it, integers by the short way included.
func TestValueJSONIsCtyJSON(t *testing.T) {
	negZero := new(big.Float).Neg(new(big.Float))
	big63 := new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 63))
	values := []cty.Value{
		cty.Zero, cty.NumberVal(negZero), cty.NumberIntVal(1), cty.NumberIntVal(-1),
		cty.NumberIntVal(16384), cty.NumberIntVal(1 << 53), cty.NumberIntVal(math.MaxInt64),
		cty.NumberIntVal(math.MinInt64), cty.NumberVal(big63), cty.NumberVal(new(big.Float).Neg(big63)),
		cty.NumberFloatVal(0.1), cty.NumberFloatVal(1.5), cty.NumberFloatVal(-2.25), cty.NumberFloatVal(1e21),
		cty.MustParseNumberVal("0.85"), cty.MustParseNumberVal("20000"), cty.MustParseNumberVal("1e3"),
		cty.StringVal("a\"b"), cty.True, cty.ListVal([]cty.Value{cty.NumberIntVal(5), cty.NumberIntVal(10)}),
	}
	for _, v := range values {
		want, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		if got := valueJSON(v); string(got) != string(want) {
			t.Errorf("%#v: %s, cty writes %s", v, got, want)
		}
	}
	for _, v := range []cty.Value{cty.NilVal, cty.NullVal(cty.Number), cty.UnknownVal(cty.Number)} {
		if got := valueJSON(v); string(got) != "null" {
			t.Errorf("%#v: %s, not null", v, got)
		}
	}
}
