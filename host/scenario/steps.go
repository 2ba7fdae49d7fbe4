package scenario

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Scenario is a decoded scenario file.
type Scenario struct {
	// File is the name diagnostics use; Source its bytes.
	File   string
	Source []byte

	Title       string
	Description string
	// Policy names the policy the scenario is written for: a built-in
	// name or a file path ("" when the header does not say); a path is
	// relative to the scenario file.
	Policy      string
	PolicyRange hcl.Range
	// Set are the header's param overrides, in name order, each with the
	// range of its value so that a bad override points into the scenario.
	Set []Param
	// Host are the host settings at the start of the session.
	Host Host

	Steps     []Step
	DeclRange hcl.Range
}

// Param is one param override of the header's `set`.
type Param struct {
	Name      string
	Value     cty.Value
	Range     hcl.Range
	NameRange hcl.Range
}

// Host are the simulated host's settings.
type Host struct {
	ContextWindow  int64  // the model's context window (default 200000)
	Reserve        int64  // Pi's compaction.reserveTokens (default 16384)
	AutoCompaction bool   // Pi's automatic compaction (default on)
	AutoReset      bool   // automatic resets allowed (default on)
	Enabled        bool   // the policy is switched on (default on)
	Model          string // the model's id (default "sim-model")
}

// DefaultHost are the settings a header does not change.
func DefaultHost() Host {
	return Host{ContextWindow: 200000, Reserve: 16384, AutoCompaction: true, AutoReset: true, Enabled: true, Model: "sim-model"}
}

// Step is one block of a scenario, in file order.
type Step interface {
	// Kind is the block type ("user", "assistant", …).
	Kind() string
	// Range is the block's header, for diagnostics.
	Range() hcl.Range
}

// At is the position every step carries.
type At struct {
	DeclRange hcl.Range
}

// Range is the step's block header.
func (a At) Range() hcl.Range { return a.DeclRange }

// User is a prompt the user sends while the agent is idle: `user "TEXT" {}`
// or `user { text = "…" }`.
type User struct {
	At
	Text string
}

// Assistant is the model's answer to the request the host is making.
type Assistant struct {
	At
	// Text is what the model says ("" for none).
	Text string
	// Tokens is the context size the provider reports in the response's
	// usage; 0 lets the host estimate it.
	Tokens int64
	// Error is a provider error instead of an answer: "overflow" is a
	// context-overflow error, anything else a generic error with that
	// message.
	Error string
	// Abort is "user" when the user aborts while the answer streams (Pi's
	// operation cancellation), "synthetic" when the answer arrives with
	// stopReason "aborted" though nothing was cancelled.
	Abort string
	// Calls are the tool calls of the answer, run in order.
	Calls []Call
}

// Call is one tool call of an answer:
// `call "NAME" { args = {…}  result = "…"  is_error = false }`. A call of a
// tool the policy declares goes to the engine as a `tool` event and its
// reply is the result; any other tool returns Result ("ok" when empty).
type Call struct {
	At
	Name    string
	Args    json.RawMessage // a JSON object
	ArgsMap map[string]any
	Result  string
	IsError bool
}

// Steer queues a steering message while the agent streams: delivered
// after the current turn's tool calls, before the next model request.
type Steer struct {
	At
	Text string
}

// FollowUp queues a follow-up message while the agent streams: delivered
// when the agent would otherwise stop.
type FollowUp struct {
	At
	Text string
}

// Command runs a command of the policy: `command "/NAME ARGS…" {}` or
// `command "NAME" { args = "…" }`.
type Command struct {
	At
	Name string
	Args string
}

// Compact is the user's /compact while idle. Instructions are kept for
// the record; the simulated compaction does not read them.
type Compact struct {
	At
	Instructions string
}

// Toggle switches the policy on or off with its on/off command:
// `toggle "off" {}`.
type Toggle struct {
	At
	On bool
}

// Settings changes host settings without an event; unset fields keep
// their value.
type Settings struct {
	At
	AutoCompaction *bool
	AutoReset      *bool
	Reserve        *int64
}

// Model switches the model: `model "NAME" { context_window = 128000 }`.
type Model struct {
	At
	Name          string
	ContextWindow int64 // 0: unchanged
}

// Wait moves the host clock: `wait "10s" {}`.
type Wait struct {
	At
	Millis int64
}

// Summary scripts the outcome of the next checkpoint summary: by default
// it succeeds with a generated text; `summary { ok = false  error = "…" }`
// makes it fail.
type Summary struct {
	At
	OK    bool
	Text  string
	Error string
}

// Compaction scripts the next host compaction (threshold, overflow,
// /compact or a policy's compact attempt): `reject` refuses it before the
// extension hook (Pi's eligibility check), `error` fails it after the
// hook, `signal_aborted` aborts its signal.
type Compaction struct {
	At
	Reject        string
	Error         string
	SignalAborted bool
}

// Reopen closes the session (session_shutdown), writes its file, reads it
// back and starts it again (session_start "resume"), with fresh policy
// state: only the durable history survives.
type Reopen struct {
	At
}

// Mark names the current leaf so that a later tree step can navigate to
// it. It writes nothing to the session.
type Mark struct {
	At
	Name string
}

// Tree navigates the session tree to a marked entry (/tree), asking for a
// summary of the branch it leaves when Summarize is set.
type Tree struct {
	At
	Target    string
	Summarize bool
}

func (*User) Kind() string       { return "user" }
func (*Assistant) Kind() string  { return "assistant" }
func (*Steer) Kind() string      { return "steer" }
func (*FollowUp) Kind() string   { return "follow_up" }
func (*Command) Kind() string    { return "command" }
func (*Compact) Kind() string    { return "compact" }
func (*Toggle) Kind() string     { return "toggle" }
func (*Settings) Kind() string   { return "settings" }
func (*Model) Kind() string      { return "model" }
func (*Wait) Kind() string       { return "wait" }
func (*Summary) Kind() string    { return "summary" }
func (*Compaction) Kind() string { return "compaction" }
func (*Reopen) Kind() string     { return "reopen" }
func (*Mark) Kind() string       { return "mark" }
func (*Tree) Kind() string       { return "tree" }
