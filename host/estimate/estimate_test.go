package estimate_test

import (
	"testing"
	"unicode/utf16"

	"github.com/resetpolicy/resetpolicy/host/estimate"
	"github.com/resetpolicy/resetpolicy/host/jsonscan"
)

// JSNumber writes numbers as JavaScript's Number#toString.
func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -1: "-1", 1.5: "1.5", 100: "100", 1e21: "1e+21", 1e20: "100000000000000000000",
		123456789012345680000: "123456789012345680000", 1e-6: "0.000001", 1e-7: "1e-7", 0.1: "0.1",
		-2.5e-8: "-2.5e-8", 1.7976931348623157e308: "1.7976931348623157e+308", 5e-324: "5e-324", 12.34: "12.34",
	} {
		if got := estimate.JSNumber(f); got != want {
			t.Errorf("JSNumber(%v) = %s, want %s", f, got, want)
		}
	}
}

// StringifyLen is the length of V8's JSON.stringify of the parsed value:
// whitespace and escapes as the file had them do not count.
func TestStringifyLen(t *testing.T) {
	for in, want := range map[string]string{
		`{ "a" : 1.50, "b": [ true, null, "x\u00e9" ] }`: `{"a":1.5,"b":[true,null,"xé"]}`,
		`"tab\there \"q\" \u0001 /"`:                     `"tab\there \"q\" \u0001 /"`,
		`{"n":1E3,"m":-0.0}`:                             `{"n":1000,"m":0}`,
		`[]`:                                             `[]`,
	} {
		var d jsonscan.Doc
		v, err := d.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := estimate.StringifyLen(v); got != int64(len(utf16.Encode([]rune(want)))) {
			t.Errorf("StringifyLen(%s) = %d, want %d (%s)", in, got, len(want), want)
		}
	}
}

// Message counts by role as Pi's estimateTokens does.
func TestMessage(t *testing.T) {
	for in, want := range map[string]int64{
		`{"role":"user","content":"abcdefgh"}`:                                                                                                                          2,
		`{"role":"user","content":[{"type":"text","text":"abcde"},{"type":"image","data":"...."}]}`:                                                                     (5 + 4800 + 3) / 4,
		`{"role":"toolResult","content":[{"type":"text","text":"abcd"}],"details":{"output":"abcd"}}`:                                                                   1,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"abcd"},{"type":"text","text":"ab"},{"type":"toolCall","name":"read","arguments":{"path":"a"}}]}`: (4 + 2 + 4 + 12 + 3) / 4,
		`{"role":"system","content":"ab","sections":{"x":"cd","y":""},"toolsAdded":[{"name":"r"}]}`:                                                                     (2 + 2 + 14 + 3) / 4,
		// A section counts its decoded text in UTF-16 units (é one, \n one).
		`{"role":"system","content":"","sections":{"x":"\u00e9\n\u00e9\n\u00e9\n"}}`: (6 + 3) / 4,
		`{"role":"bashExecution","command":"ls","output":"a b"}`:                     2,
		`{"role":"compactionSummary","summary":"abcdefghi"}`:                         3,
		`{"role":"custom","content":"abcd"}`:                                         1,
		`{"role":"other","content":"abcd"}`:                                          0,
	} {
		var d jsonscan.Doc
		v, err := d.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := estimate.Message(v); got != want {
			t.Errorf("Message(%s) = %d, want %d", in, got, want)
		}
	}
}
