package scenario

import (
	"fmt"
	"io"
	"strings"
)

// StepRef documents one step block of the scenario format, for
// `resetpolicy contract --scenario` and docs/scenario.md. A test checks that
// every step the decoder takes is here.
type StepRef struct {
	Block string    `json:"block"`
	Label string    `json:"label,omitempty"`
	Doc   string    `json:"doc"`
	Attrs []AttrRef `json:"attributes"`
}

// AttrRef is one attribute of a step (or of the header, or of a call).
type AttrRef struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Doc  string `json:"doc"`
}

// HeaderRef documents the scenario header block.
var HeaderRef = StepRef{Block: "scenario", Label: "TITLE (optional)", Doc: "the header: the policy the scenario is written for and the host settings at the start", Attrs: []AttrRef{
	{"description", "string", "what the scenario shows"},
	{"policy", "string", "a built-in's name or a policy file relative to the scenario file (--policy wins)"},
	{"set", "object", "param overrides, as { warning_runway = 8192 } (--set wins)"},
	{"context_window", "number", "the model's context window (default 200000)"},
	{"reserve", "number", "Pi's compaction.reserveTokens (default 16384)"},
	{"auto_compaction", "bool", "Pi's automatic compaction (default true)"},
	{"auto_reset", "bool", "automatic resets allowed (default true)"},
	{"enabled", "bool", "the policy is switched on (default true)"},
	{"model", "string", "the model's id (default \"sim-model\")"},
}}

// StepRefs documents every step block, in the order a reader meets them.
var StepRefs = []StepRef{
	{Block: "user", Label: "TEXT", Doc: "a prompt the user sends while the agent is idle; or user { text = \"…\" }", Attrs: []AttrRef{{"text", "string", "the prompt, when not given as the label"}}},
	{Block: "assistant", Doc: "the model's answer to the request the host is making", Attrs: []AttrRef{
		{"text", "string", "what the model says"},
		{"tokens", "number", "the context size the provider reports; 0 lets the host estimate it"},
		{"error", "string", "a provider error instead of an answer: \"overflow\", or any other message"},
		{"abort", "string", "\"user\": the user aborts while it streams; \"synthetic\": it arrives with stopReason aborted"},
		{"call \"TOOL\" { … }", "block", "a tool call, run in order: args (object), result (string), is_error (bool); a policy tool goes to the engine as a tool event"},
	}},
	{Block: "steer", Label: "TEXT", Doc: "a steering message queued while the agent streams, delivered before the next model request", Attrs: []AttrRef{{"text", "string", "the message, when not given as the label"}}},
	{Block: "follow_up", Label: "TEXT", Doc: "a follow-up message queued while the agent streams, delivered when it would otherwise stop", Attrs: []AttrRef{{"text", "string", "the message, when not given as the label"}}},
	{Block: "command", Label: "/NAME ARGS…", Doc: "runs a command the policy declares", Attrs: []AttrRef{{"args", "string", "the arguments, when not given in the label"}}},
	{Block: "compact", Doc: "the user's /compact while idle", Attrs: []AttrRef{{"instructions", "string", "kept for the record; the simulated compaction does not read them"}}},
	{Block: "toggle", Label: "on|off", Doc: "switches the policy with its on/off command"},
	{Block: "settings", Doc: "changes host settings without an event; unset ones keep their value", Attrs: []AttrRef{
		{"auto_compaction", "bool", "Pi's automatic compaction"},
		{"auto_reset", "bool", "automatic resets allowed"},
		{"reserve", "number", "Pi's compaction.reserveTokens"},
	}},
	{Block: "model", Label: "NAME", Doc: "switches the model (a model_select event)", Attrs: []AttrRef{{"context_window", "number", "the new model's context window; 0 keeps it"}}},
	{Block: "wait", Label: "DURATION", Doc: "moves the host clock, as \"10s\" or \"500ms\""},
	{Block: "summary", Doc: "scripts the next checkpoint summary; by default it succeeds with a generated text", Attrs: []AttrRef{
		{"ok", "bool", "false makes it fail"},
		{"text", "string", "the summary text"},
		{"error", "string", "the error of a failed summary"},
	}},
	{Block: "compaction", Doc: "scripts the next host compaction (threshold, overflow, /compact or a compact effect)", Attrs: []AttrRef{
		{"reject", "string", "refuses it before the extension hook (Pi's eligibility check), with this reason"},
		{"error", "string", "fails it after the hook"},
		{"signal_aborted", "bool", "aborts its signal"},
	}},
	{Block: "reopen", Doc: "closes the session, writes its file, reads it back and resumes it with fresh policy state"},
	{Block: "mark", Label: "NAME", Doc: "names the current leaf for a later tree step; writes nothing"},
	{Block: "tree", Label: "MARK", Doc: "navigates the session tree to a marked entry (/tree)", Attrs: []AttrRef{{"summarize", "bool", "ask for a summary of the branch left"}}},
}

// StepNames lists the step blocks the decoder takes.
func StepNames() []string {
	var out []string
	for name := range stepDecoders {
		out = append(out, name)
	}
	return out
}

// WriteMarkdown writes the scenario format's reference: docs/scenario.md.
func WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Scenario steps\n\n")
	b.WriteString("Generated by `resetpolicy contract --scenario --markdown` from `host/scenario`; a test keeps it current.\n\n")
	b.WriteString("A scenario (`*.scenario.hcl`, run by `resetpolicy simulate`) is a header block followed by steps, one block each, in the order they happen.\n\n")
	for _, s := range append([]StepRef{HeaderRef}, StepRefs...) {
		label := ""
		if s.Label != "" {
			label = fmt.Sprintf(" %q", s.Label)
		}
		fmt.Fprintf(&b, "## `%s%s { … }`\n\n%s.\n\n", s.Block, label, strings.ToUpper(s.Doc[:1])+s.Doc[1:])
		if len(s.Attrs) == 0 {
			continue
		}
		b.WriteString("| attribute | type | meaning |\n| --- | --- | --- |\n")
		for _, a := range s.Attrs {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", a.Name, a.Type, strings.ReplaceAll(a.Doc, "|", `\|`))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}
