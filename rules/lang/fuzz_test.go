package lang

import "testing"

// FuzzCompile compiles and runs arbitrary expressions: a compile error, a
// runtime error in the frame, or a value; never a panic.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"event.tokens + param.runway >= 1000", "param.delays[state.failures]", "field(event.text, 2)",
		"event.args.reason == 'full'", "int(event.text) % 0", "state.phase in ['none']", "min(1, 2.5) ?? 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src, testEnv())
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%q: error %T is not an *Error", src, err)
			}
			return
		}
		fr := testFrame()
		p.Eval(fr)
	})
}
