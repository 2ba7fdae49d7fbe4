package lsp

import (
	"regexp"
	"sync"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// tableSet holds the patterns and tables of the server. They are built on
// first use, not at package init: this package is linked into the one
// binary, and every start of it (serve, which Pi spawns at each session,
// included) would pay for them.
type tableSet struct {
	member, label, tool, key, keyPos, attrPos, ref *regexp.Regexp

	// blockWords are the attributes and blocks each block of a policy
	// takes, testWords those of a test file, for completion at the start
	// of a line.
	blockWords, testWords map[string][]string
	labelWhat             map[string]what
	symbolKinds           map[string]protocol.SymbolKind
	// children says which nested blocks are part of the outline.
	children map[string]map[string]bool
}

var tab = sync.OnceValue(func() *tableSet {
	return &tableSet{
		member:  regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])(event|state|param|message)\.([A-Za-z0-9_]*)$`),
		label:   regexp.MustCompile(`^\s*([a-z_]+)\s+"([^"]*)$`),
		tool:    regexp.MustCompile(`event\.name\s*(?:==|!=)\s*'[A-Za-z0-9_-]*$`),
		key:     regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:\[[^\]]*)?"[^"]*$`),
		keyPos:  regexp.MustCompile(`[{,\s]([A-Za-z_][A-Za-z0-9_]*)?$`),
		attrPos: regexp.MustCompile(`^\s*[A-Za-z_]*$`),
		// The names an expression string reads; text inside single quotes
		// (the expression's own string literals) matches whole, to be skipped.
		ref: regexp.MustCompile(`\b(event|state|param|message)\.([A-Za-z_][A-Za-z0-9_]*)|'[^']*'|\b[A-Za-z_][A-Za-z0-9_]*\b`),
		blockWords: map[string][]string{
			"":           {"policy", "use", "param", "slot", "derived", "message", "tool", "command", "group", "property", "verify", "override", "disable", "inherit_tests"},
			"policy":     {"description"},
			"param":      {"type", "default", "description", "validation"},
			"validation": {"condition", "error_message"},
			"slot":       {"values", "type", "initial", "description", "durable"},
			"derived":    {"value", "description"},
			"message":    {"text", "description", "kind"},
			"tool":       {"description", "parameter"},
			"parameter":  {"type", "description", "required"},
			"command":    {"description", "usage"},
			"group":      {"description", "rule"},
			"rule":       {"kind", "on", "from", "when", "to", "set", "description", "effect"},
			"override":   {"kind", "on", "from", "when", "to", "set", "description", "effect"},
			"disable":    {"reason"},
			"property":   {"always", "never", "with", "on", "when", "at_most", "of", "per", "cycle_ends_on", "no_loop_of", "new_input_on"},
			"verify":     {"domain", "unfired", "unreached"},
		},
		testWords: map[string][]string{
			"":       {"policy", "params", "run"},
			"run":    {"params", "state", "event", "expect", "assert"},
			"expect": {"rules", "effects", "effects_contain", "error", "state"},
			"assert": {"condition", "error_message"},
		},
		labelWhat: map[string]what{
			"rule": wRule, "override": wRule, "disable": wRule, "effect": wEffect, "slot": wSlot,
			"param": wParam, "message": wMessage, "derived": wDerived, "tool": wTool,
			"command": wCommand, "group": wGroup, "use": wBuiltin, "event": wEvent,
		},
		symbolKinds: map[string]protocol.SymbolKind{
			"policy": protocol.SymbolKindModule, "use": protocol.SymbolKindModule,
			"param": protocol.SymbolKindConstant, "slot": protocol.SymbolKindVariable,
			"derived": protocol.SymbolKindFunction, "message": protocol.SymbolKindString,
			"tool": protocol.SymbolKindInterface, "command": protocol.SymbolKindInterface,
			"parameter": protocol.SymbolKindField,
			"group":     protocol.SymbolKindNamespace, "rule": protocol.SymbolKindMethod,
			"override": protocol.SymbolKindMethod, "disable": protocol.SymbolKindMethod,
			"property": protocol.SymbolKindProperty, "verify": protocol.SymbolKindObject,
			"run": protocol.SymbolKindClass, "event": protocol.SymbolKindEvent,
			"scenario": protocol.SymbolKindModule,
		},
		children: map[string]map[string]bool{
			"group": {"rule": true},
			"tool":  {"parameter": true},
			"run":   {"event": true},
		},
	}
})
