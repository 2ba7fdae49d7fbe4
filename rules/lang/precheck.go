package lang

import (
	"slices"
	"sync"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
)

// Checking an expression is expr's parser, then expr's type checker under
// a configuration made for the expression's environment; for the default
// policy the checker and its 18 configurations were a twelfth of the
// start of the process Pi spawns. Both are known when the binary is built
// for the built-in policies' expressions, so their answers are kept
// (prechecked_gen.go): for each environment signature, the sources the
// checker accepted in it.
//
// The answer kept is the checker's own. The checker is a function of the
// syntax tree and of the configuration, and the configuration of the
// signature alone (cfgCache rests on the same fact); an expression only
// goes into the table when the checker, besides accepting it, left its
// tree as the parser made it, apart from the types it notes on the
// nodes, which the compiler never reads (the checker rewrites an integer
// literal passed to a float parameter, for one). So compiling a source of
// the table without the checker builds the same program. A source or a
// signature not in it (a project's own expression, a built-in extended
// with a slot of its own, a contract with a new fact) is checked as
// before. The table holds for the expr that made it: go.mod pins expr,
// and TestPrecheckedIsCurrent, which regenerates the table from the
// built-ins and fails when it differs from the one compiled in, fails
// after an upgrade whose checker answers otherwise or whose parser builds
// other trees.

// precheckedEnv is one signature of the table, with the sources the
// checker accepted in it, sorted.
type precheckedEnv struct {
	sig  string
	srcs []string
}

// usePrechecked is false while the table is regenerated, so that every
// expression goes through the checker again.
var usePrechecked = true

// recordChecked, when set, is told of every expression the checker
// accepted, with its environment and its tree after checking: the
// table's generator.
var recordChecked func(sig, src string, env *Env, checked *parser.Tree)

// noSources is pre's value for a signature the table does not have.
var noSources []string

// prechecked reports whether src is in the table under e's signature.
func (e *Env) prechecked(src string) bool {
	if !usePrechecked {
		return false
	}
	if e.pre == nil {
		e.pre = &noSources
		sig := e.signature()
		for i := range prechecked {
			if prechecked[i].sig == sig {
				e.pre = &prechecked[i].srcs
				break
			}
		}
	}
	_, ok := slices.BinarySearch(*e.pre, src)
	return ok
}

// parse parses src for env: a prechecked expression from its tree made at
// build time when there is one, any other with the parser.
func parse(src string, env *Env, prechecked bool) (*parser.Tree, error) {
	cfg := parseConfig(env, prechecked)
	if cfg == sharedParseConfig() {
		if t, ok := preparsed(src); ok {
			return t, nil
		}
	}
	return parser.ParseWithConfig(src, cfg)
}

// parseConfig is the configuration the parser reads src with. The parser
// reads a configuration for its node limit and to tell a builtin from a
// name of the same spelling (a function of the language, or a name of the
// environment, which takes the place of expr's builtin): an environment
// that names no builtin parses as one with no names at all, so a source
// that is not to be checked (prechecked) is parsed under one shared
// configuration instead of its environment's own.
func parseConfig(env *Env, prechecked bool) *conf.Config {
	if !prechecked || namesBuiltin(env) {
		return config(env)
	}
	return sharedParseConfig()
}

var sharedParseConfig = sync.OnceValue(func() *conf.Config { return configOf(types.Map{}) })

// namesBuiltin reports whether a top-level name of env is spelt as one of
// expr's builtins (the namespaces are not: TestNamespacesAreNotBuiltins).
func namesBuiltin(env *Env) bool {
	for _, b := range env.Top {
		if _, ok := builtin.Index[b.Name]; ok {
			return true
		}
	}
	return false
}
