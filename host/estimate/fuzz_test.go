package estimate_test

import (
	"encoding/json"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/host/estimate"
)

// FuzzLengths: for valid UTF-8 text, JSLen is its UTF-16 length, and
// EscapedLen of its JSON string literal (escaped as encoding/json
// escapes it) is the same.
//
//	go test ./host/estimate -run XXX -fuzz FuzzLengths -fuzztime 60s
func FuzzLengths(f *testing.F) {
	for _, s := range []string{"", "plain", "déjà 😀", "a\"b\\c\n\t\u2028<&>", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want := int64(len(utf16.Encode([]rune(s))))
		if got := estimate.JSLen([]byte(s)); got != want {
			t.Fatalf("JSLen(%q) = %d, want %d", s, got, want)
		}
		lit, _ := json.Marshal(s)
		if got := estimate.EscapedLen(lit[1 : len(lit)-1]); got != want {
			t.Fatalf("EscapedLen(%s) = %d, want %d", lit, got, want)
		}
	})
}
