package lang

import (
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/parser"
)

// withTable compiles evalCases with the checker and makes the table
// prechecked of what it accepted, as the generator does, for the test's
// length.
func withTable(t *testing.T) {
	t.Helper()
	table := map[string][]string{}
	restore := RecordChecked(func(sig, src string, parsed, checked *parser.Tree) {
		if TreeShape(parsed.Node) == TreeShape(checked.Node) {
			table[sig] = append(table[sig], src)
		}
	})
	for _, tc := range evalCases {
		if _, err := Compile(tc.src, testEnv()); err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
	}
	restore()
	if len(table) != 1 {
		t.Fatalf("testEnv has one signature, the table %d", len(table))
	}
	saved := prechecked
	t.Cleanup(func() { prechecked = saved })
	prechecked = nil
	for sig, srcs := range table {
		slices.Sort(srcs)
		prechecked = append(prechecked, precheckedEnv{sig: sig, srcs: srcs})
	}
}

// TestPrecheckedCompilesTheSame: an expression of the table compiles
// without the checker, and to a program that evaluates as the checked one
// does.
func TestPrecheckedCompilesTheSame(t *testing.T) {
	withTable(t)
	checks := 0
	recordChecked = func(string, string, *Env, *parser.Tree) { checks++ }
	defer func() { recordChecked = nil }()
	for _, tc := range evalCases {
		env := testEnv()
		if !env.prechecked(tc.src) {
			t.Errorf("%s: not in the table", tc.src)
		}
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if env.cfg != nil {
			t.Errorf("%s: the checker's configuration was made", tc.src)
		}
		f := testFrame()
		if got := p.Eval(f).Interface(p.Type); got != tc.want || f.Err != nil {
			t.Errorf("%s = %#v (%v) without the checker, want %#v", tc.src, got, f.Err, tc.want)
		}
	}
	if checks > 0 {
		t.Errorf("the checker ran %d times on expressions of the table", checks)
	}
}

// TestPrecheckedChecksTheRest: in an environment whose signature is in
// the table, an expression that is not is still checked, with the
// checker's error.
func TestPrecheckedChecksTheRest(t *testing.T) {
	withTable(t)
	for _, tc := range []struct{ src, msg string }{
		{"event.tokens == 'x'", "mismatched types"},
		{"upper(1)", "cannot use int as argument"},
	} {
		env := testEnv()
		if env.prechecked(tc.src) {
			t.Fatalf("%s is in the table", tc.src)
		}
		_, err := Compile(tc.src, env)
		if e, ok := err.(*Error); !ok || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %q", tc.src, err, tc.msg)
		}
	}
	// Another signature: the same source is checked.
	env := testEnv()
	env.State = env.State[:1]
	if env.prechecked("state.phase in ['none', 'close-out']") {
		t.Error("a source is taken as checked under another environment's signature")
	}
}

// TestPrecheckedParsesAsItsEnvironment: an environment with a name spelt
// as a builtin parses under its own configuration, where the name takes
// the builtin's place; any other, under the shared one, parses the same.
func TestPrecheckedParsesAsItsEnvironment(t *testing.T) {
	upper, err := Compile("event.text", testEnv())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Top = []Binding{{Name: "upper", Prog: upper}}
	if parseConfig(env, true) != config(env) {
		t.Fatal("an environment naming a builtin parses under the shared configuration")
	}
	const src = "upper(event.text) == 'X'"
	own, err := parser.ParseWithConfig(src, config(env))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := parser.ParseWithConfig(src, sharedParseConfig())
	if err != nil {
		t.Fatal(err)
	}
	if TreeShape(own.Node) == TreeShape(shared.Node) {
		t.Fatal("the name parses as the builtin does: the test shows nothing")
	}
	for _, tc := range evalCases {
		env := testEnv()
		a, errA := parser.ParseWithConfig(tc.src, config(env))
		b, errB := parser.ParseWithConfig(tc.src, parseConfig(env, true))
		if errA != nil || errB != nil || TreeShape(a.Node) != TreeShape(b.Node) {
			t.Errorf("%s parses differently under the shared configuration (%v, %v)", tc.src, errA, errB)
		}
	}
}

// TestNamespacesAreNotBuiltins: namesBuiltin looks only at top-level
// bindings because no namespace is spelt as a builtin.
func TestNamespacesAreNotBuiltins(t *testing.T) {
	for _, ns := range []string{nsEvent, nsState, nsParam, nsMessage} {
		if _, ok := builtin.Index[ns]; ok {
			t.Errorf("namespace %q is a builtin's name", ns)
		}
	}
}

// TestPreparsedOnlyUnderTheSharedConfiguration: the tree made at build
// time is the shared configuration's parse, so an environment naming a
// builtin parses the source itself, and a source not prechecked too.
func TestPreparsedOnlyUnderTheSharedConfiguration(t *testing.T) {
	const src = "upper(event.text) == 'X'"
	shared, err := parser.ParseWithConfig(src, sharedParseConfig())
	if err != nil {
		t.Fatal(err)
	}
	saved := preparsedTrees
	defer func() { preparsedTrees = saved }()
	// A tree that is not the source's, to tell which was used.
	other, _ := parser.ParseWithConfig("true", sharedParseConfig())
	wrong, _ := encodeTree(other.Node)
	preparsedTrees = []preparsedTree{{src: src, tree: wrong}}
	if got, err := parse(src, testEnv(), true); err != nil || TreeShape(got.Node) != TreeShape(other.Node) {
		t.Fatal("a prechecked source is parsed, not rebuilt")
	}
	if got, err := parse(src, testEnv(), false); err != nil || TreeShape(got.Node) != TreeShape(shared.Node) {
		t.Error("a source not prechecked is rebuilt from the table")
	}
	upper, _ := Compile("event.text", testEnv())
	env := testEnv()
	env.Top = []Binding{{Name: "upper", Prog: upper}}
	own, _ := parser.ParseWithConfig(src, config(env))
	if got, err := parse(src, env, true); err != nil || TreeShape(got.Node) != TreeShape(own.Node) {
		t.Error("an environment naming a builtin is given the shared configuration's tree")
	}
}
