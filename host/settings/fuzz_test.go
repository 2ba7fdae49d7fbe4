package settings

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// FuzzDecodeYAML decodes arbitrary config text: decodeYAML answers in
// bounded time and, where yaml's own decoder takes the text as a mapping,
// gives the same value (it differs only in being linear).
func FuzzDecodeYAML(f *testing.F) {
	for _, s := range []string{
		"policy: new_context\nparams:\n  warning_runway: 1000\n  reserve_margin: 1\ndecision_log: user.jsonl\n",
		"params:\n  x: [1, 2]\n  y: \"s\"\n  z: true\n",
		"base: &b {x: 1, y: 2}\nparams:\n  <<: *b\n  y: 3\n",
		"params:\n  x: 1\n  x: 2\n",
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		"", "# c\n", "- 1\n", "a: 1\n---\nb: 2\n", "params: .nan\n",
		"params:\n" + strings.Repeat("  p: 1\n", 3),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		done := make(chan struct{})
		var got map[string]any
		var err error
		go func() { got, err = decodeYAML([]byte(text)); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("decoding took more than 10 s")
		}
		var want map[string]any
		werr := yaml.Unmarshal([]byte(text), &want)
		if err == nil && werr == nil && want != nil && fmt.Sprint(got) != fmt.Sprint(stringKeys(want)) {
			t.Fatalf("decoded %v; yaml decodes %v", got, want)
		}
	})
}

// stringKeys makes every nested map a map of strings, as viper does with
// what yaml decodes (fmt's keys).
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = stringKeys(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = stringKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stringKeys(e)
		}
		return out
	}
	return v
}
