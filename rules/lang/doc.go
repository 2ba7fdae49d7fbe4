// Package lang compiles the expressions of a policy — guards, derived
// values, slot assignments, effect arguments and param validations — into
// typed Go closures over fixed slots.
//
// The language is expr-lang's: lang keeps expr's parser and type checker
// (the syntax, and type errors with their offsets) and then walks the
// checked syntax tree once, turning each node into a closure that reads
// event facts and state slots by index. Nothing is looked up by name and
// nothing is boxed when a decision runs, which is what keeps Decide under a
// microsecond. Params and messages are folded to constants at compile time.
//
// Cost is bounded, not only size: a derived value is computed at most once
// per event (memoised in the Frame), strings are built only under
// MaxValueBytes, the string work of one decision is capped at MaxWorkBytes,
// and constants folded while loading are capped at MaxFoldedBytes; a bound
// hit at decide time is a Frame error naming the expression.
//
// The checker's answers for the built-in policies' expressions are known
// when the binary is built and are kept (precheck.go): a load does not ask
// the checker again for an expression it accepted in an environment of the
// same signature, and every other expression is checked.
//
// lang owns expressions only: it knows nothing of HCL, files, rules or
// sessions. It never panics on user input; compile errors are *Error values
// carrying a byte offset into the expression source.
package lang
