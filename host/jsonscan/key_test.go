package jsonscan

import (
	"math/rand"
	"strings"
	"testing"
)

// TestAtIsGet: At finds the member Get finds, on objects built to meet its
// cases: keys of one to seventeen bytes, keys that differ from the one asked
// in their last byte, a key written twice (the first counts), a key
// written with an escape that decodes to the one asked (taken only where
// none is written as it), a name that a shorter key and its closing quote
// spell, and values that are not objects.
func TestAtIsGet(t *testing.T) {
	// k" is never a key of these objects, but the text after the key k
	// holds it: a compare of the bytes must stop at the key's length.
	names := []string{"k", "id", "type", "role", "usage", "parentId", "toolName", "timestamp", "", `k"`, "cacheWriteTokens", "cacheWriteTokensX"}
	keys := []string{`"k"`, `"j"`, `"id"`, `"ie"`, `"type"`, `"typf"`, `"role"`, `"usage"`, `"usagf"`, `"parentId"`, `"parentIe"`, `"toolName"`, `"timestamp"`, `"timestamq"`, `"t\u0079pe"`, `"\u0069d"`, `""`, `"` + strings.Repeat("x", 40) + `"`,
		// Keys of sixteen and seventeen bytes, and keys that differ from
		// them in the last byte.
		`"cacheWriteTokens"`, `"cacheWriteTokenz"`, `"cacheWriteTokensX"`, `"cacheWriteTokensY"`}
	r := rand.New(rand.NewSource(14))
	var d Doc
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		sb.WriteString("{")
		for m := range r.Intn(10) {
			if m > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(keys[r.Intn(len(keys))] + ":" + []string{"1", `"v"`, "[2]", `{"id":3}`}[r.Intn(4)])
		}
		sb.WriteString("}")
		text := sb.String()
		if r.Intn(20) == 0 {
			text = `["k","id"]`
		}
		v, err := d.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for _, name := range names {
			if got, want := v.At(NewKey(name)), v.Get(name); got != want {
				t.Fatalf("%s: At(%q) found %v, Get %v", text, name, got, want)
			}
		}
		if v.Get("id").Exists() {
			if got, want := v.Get("id").At(NewKey("id")), v.Get("id").Get("id"); got != want {
				t.Fatalf("%s: the inner id: At found %v, Get %v", text, got, want)
			}
		}
	}
	if (Value{}).At(NewKey("k")).Exists() {
		t.Error("At of the zero Value found something")
	}
}
