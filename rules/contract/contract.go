package contract

import "sort"

// Version is the host contract version that policies and hosts agree on.
const Version = "1"

// Type is the type of a fact or an effect argument as the host sends or
// receives it in JSON.
type Type int

const (
	Bool Type = iota + 1
	Int
	String
	// Object is a JSON object whose members the host does not type (a
	// tool's arguments).
	Object
)

func (t Type) String() string {
	switch t {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case String:
		return "string"
	case Object:
		return "object"
	}
	return "invalid"
}

// Fact is one named value carried by an event.
type Fact struct {
	Name string
	Type Type
	// Default is the value the fact takes when the event omits it: a
	// bool, an int64, a string or nil (empty object).
	Default any
	// Enum, when set, lists the only values a string fact may take.
	Enum []string
	Doc  string
}

// Event is one lifecycle event a host reports.
type Event struct {
	Name string
	// Hook names the Pi 1.6 hook the event is mapped from.
	Hook string
	// Facts are the event's own facts; CommonFacts come on every event.
	Facts []Fact
	Doc   string
	// Reported says when the Pi host (host/pi) reports the event.
	Reported string
}

// Arg is one argument of an effect.
type Arg struct {
	Name     string
	Type     Type
	Required bool
	// Enum, when set, lists the values the argument may take; such
	// arguments are structure and must be written literally in a policy.
	Enum []string
	// Message marks an argument that names one of the policy's messages;
	// it too is literal.
	Message bool
	Doc     string
}

// Literal reports whether a policy must give the argument as a literal
// rather than an expression.
func (a Arg) Literal() bool { return a.Message || len(a.Enum) > 0 }

// Effect is one thing the engine can ask a host to do.
type Effect struct {
	Name string
	Args []Arg
	Doc  string
}

// Arg returns the effect's argument of that name.
func (e *Effect) Arg(name string) (Arg, bool) {
	for _, a := range e.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

var startReasons = []string{"startup", "reload", "new", "resume", "fork"}
var outcomes = []string{"completed", "error", "aborted"}
var compactReasons = []string{"manual", "threshold", "overflow"}

// CommonFacts come with every event.
var CommonFacts = []Fact{
	{Name: "window_id", Type: String, Default: "w1", Doc: "the active context window; a new id after each committed reset"},
	{Name: "now_ms", Type: Int, Default: int64(0), Doc: "host clock, milliseconds"},
	{Name: "enabled", Type: Bool, Default: true, Doc: "the policy is switched on in this session"},
	{Name: "auto_reset", Type: Bool, Default: true, Doc: "automatic resets are allowed"},
	{Name: "auto_compaction", Type: Bool, Default: true, Doc: "the host's automatic compaction is on"},
	{Name: "tokens", Type: Int, Default: int64(0), Doc: "active-window context tokens (host estimate)"},
	{Name: "context_window", Type: Int, Default: int64(200000), Doc: "the model's context window"},
	{Name: "reserve", Type: Int, Default: int64(16384), Doc: "the host's reserve (Pi compaction.reserveTokens)"},
	{Name: "idle", Type: Bool, Default: false, Doc: "the host is not streaming"},
	{Name: "queued", Type: Bool, Default: false, Doc: "steering or follow-up messages are waiting"},
}

// Events is the vocabulary of lifecycle events, in the order DESIGN §4
// lists them.
var Events = []Event{
	{Name: "session_start", Hook: "session_start", Reported: "Pi starts a session: at startup, on reload, for /new, on resume and on fork; the engine is (re)started first if it is not running", Facts: []Fact{
		{Name: "reason", Type: String, Default: "startup", Enum: startReasons, Doc: "why the session started"},
	}},
	{Name: "session_tree", Hook: "session_tree", Reported: "the user navigated the session tree (/tree) to another branch"},
	{Name: "session_shutdown", Hook: "session_shutdown", Reported: "Pi shuts the session down (exit, /new, resume of another session)", Facts: []Fact{
		{Name: "reason", Type: String, Default: "", Doc: "why the session shuts down, as Pi gives it"},
	}},
	{Name: "model_select", Hook: "model_select", Reported: "the user or Pi selects another model; the facts carry the new model's context window", Facts: []Fact{
		{Name: "model", Type: String, Default: "", Doc: "the selected model's id"},
	}},
	{Name: "toggle", Hook: "the policy's on/off command", Reported: "the user runs /resetpolicy on or /resetpolicy off", Facts: []Fact{
		{Name: "on", Type: Bool, Default: true, Doc: "the policy is switched on (true) or off"},
	}},
	{Name: "tool", Hook: "a policy tool executes", Reported: "the model calls a tool the policy declares; the reply effect is the tool result", Facts: []Fact{
		{Name: "name", Type: String, Default: "", Doc: "the tool's name"},
		{Name: "args", Type: Object, Default: nil, Doc: "the tool call's arguments"},
	}},
	{Name: "command", Hook: "a policy command runs", Reported: "the user runs a slash command the policy declares; a reply is shown as a notice", Facts: []Fact{
		{Name: "name", Type: String, Default: "", Doc: "the command's name, without the slash"},
		{Name: "args", Type: String, Default: "", Doc: "the text after the command name, trimmed"},
		{Name: "dialog", Type: Bool, Default: false, Doc: "the host can ask the user with dialogs (Pi: ctx.hasUI, the terminal and RPC modes); the ask effect needs it"},
	}},
	{Name: "request", Hook: "context_with_system", Reported: "Pi is about to send a provider request (context_with_system); an inject with deliver = \"request\" goes into this request", Facts: []Fact{
		{Name: "user_input", Type: Bool, Default: false, Doc: "a real user message follows the latest reset boundary in the active window"},
	}},
	{Name: "turn_end", Hook: "turn_end", Reported: "a turn has ended and its whole tool batch has run; the facts carry the turn's outcome and the usage at its end", Facts: []Fact{
		{Name: "outcome", Type: String, Default: "completed", Enum: outcomes, Doc: "how the turn ended"},
		{Name: "error", Type: String, Default: "", Enum: []string{"", "overflow", "other"}, Doc: "for an error: overflow (the context did not fit) or other"},
		{Name: "synthetic_abort", Type: Bool, Default: false, Doc: "the assistant message says aborted though the user did not abort"},
		{Name: "tool_results", Type: Int, Default: int64(0), Doc: "tool results in the turn"},
	}},
	{Name: "agent_end", Hook: "agent_end", Reported: "the agent loop of one prompt ends, before Pi drains queued messages"},
	{Name: "before_settle", Hook: "agent_before_settle", Reported: "Pi is about to settle the run, after queued work drained (agent_before_settle); a stop or commit here ends the run", Facts: []Fact{
		{Name: "outcome", Type: String, Default: "completed", Enum: outcomes, Doc: "how the run ended"},
	}},
	{Name: "settled", Hook: "agent_settled", Reported: "the run has settled: Pi is idle until the next prompt", Facts: []Fact{
		{Name: "aborted", Type: Bool, Default: false, Doc: "the run was aborted by the user"},
	}},
	{Name: "before_compact", Hook: "session_before_compact", Reported: "Pi is about to compact (manual /compact, threshold or overflow); provide_reset answers with a reset boundary, cancel_compaction cancels", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons, Doc: "what started the compaction"},
		{Name: "will_retry", Type: Bool, Default: false, Doc: "Pi retries the failed request after this compaction"},
		{Name: "signal_aborted", Type: Bool, Default: false, Doc: "the compaction is already cancelled"},
		{Name: "after_reset", Type: Bool, Default: false, Doc: "the current session branch already holds a reset marker, so a summary would carry erased history back"},
	}},
	{Name: "compact_done", Hook: "session_compact", Reported: "a compaction was appended to the session", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons, Doc: "what started the compaction"},
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the compact effect that started it; 0 for Pi's own"},
	}},
	{Name: "compact_failed", Hook: "session_compact_failed", Reported: "a compaction failed or was cancelled", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons, Doc: "what started the compaction"},
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the compact effect that started it; 0 for Pi's own"},
		{Name: "error", Type: String, Default: "", Doc: "the error message"},
		{Name: "aborted", Type: Bool, Default: false, Doc: "the compaction was cancelled rather than failed"},
	}},
	{Name: "attempt_complete", Hook: "ctx.compact onComplete", Reported: "a compaction started by a compact effect completed (ctx.compact onComplete)", Facts: []Fact{
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the compact effect"},
	}},
	{Name: "attempt_error", Hook: "ctx.compact onError or throw", Reported: "a compaction started by a compact effect failed (ctx.compact onError, or it threw)", Facts: []Fact{
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the compact effect"},
		{Name: "error", Type: String, Default: "", Doc: "the error message"},
	}},
	{Name: "summary_done", Hook: "a checkpoint summary finished", Reported: "the summary of a checkpoint effect finished or failed", Facts: []Fact{
		{Name: "ok", Type: Bool, Default: true, Doc: "the summary succeeded"},
		{Name: "error", Type: String, Default: "", Doc: "the error message when it failed"},
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the checkpoint effect this summary answers (0: none given)"},
		{Name: "aborted", Type: Bool, Default: false, Doc: "the summary was aborted (the user's abort, or the session being torn down); ok is false"},
		{Name: "already_compact", Type: Bool, Default: false, Doc: "the host found nothing to summarise: the context since the last compaction is what it keeps verbatim anyway (Pi: \"Nothing to compact\", \"Already compacted\"); ok is false"},
	}},
	{Name: "before_tree", Hook: "session_before_tree", Reported: "Pi is about to summarise the branch the user leaves in /tree (session_before_tree)", Doc: "the user navigates the session tree and Pi is about to summarise the branch left", Facts: []Fact{
		{Name: "crosses_reset", Type: Bool, Default: false, Doc: "the branch left or the branch entered crosses a reset boundary (host/session.SuppressTreeSummary)"},
	}},
}

// Effects is the vocabulary of effects a host carries out.
var Effects = []Effect{
	{Name: "reply", Doc: "answers the tool call or command that caused the event", Args: []Arg{
		{Name: "text", Type: String, Required: true, Doc: "the tool result or the command's answer"},
		{Name: "terminate", Type: Bool, Doc: "a tool result that ends the tool follow-up"},
	}},
	{Name: "notify", Doc: "shows a UI notice", Args: []Arg{
		{Name: "level", Type: String, Required: true, Enum: []string{"info", "warning", "error"}, Doc: "the notice's level"},
		{Name: "text", Type: String, Required: true, Doc: "the notice"},
	}},
	{Name: "inject", Doc: "adds a hidden message to this request, steers the running turn, or starts a turn when idle", Args: []Arg{
		{Name: "message", Type: String, Required: true, Message: true, Doc: "the policy message to add, by name"},
		{Name: "deliver", Type: String, Required: true, Enum: []string{"request", "steer", "turn"}, Doc: "request: into this request; steer: into the running turn; turn: start a turn when idle"},
	}},
	{Name: "commit_reset", Doc: "appends the retain-none reset boundary, then continues in the fresh window or stops", Args: []Arg{
		{Name: "continue", Type: Bool, Required: true, Doc: "continue in the fresh window"},
		{Name: "stop", Type: Bool, Doc: "stop the run after the reset"},
	}},
	{Name: "provide_reset", Doc: "answers before_compact with a retain-none reset boundary instead of a summary"},
	{Name: "cancel_compaction", Doc: "cancels the compaction", Args: []Arg{
		{Name: "text", Type: String, Doc: "a notice shown with the cancellation"},
	}},
	{Name: "compact", Doc: "starts a host compaction tagged with the attempt", Args: []Arg{
		{Name: "attempt", Type: Int, Required: true, Doc: "identifies the compaction; the host echoes it in compact_done, attempt_complete and attempt_error"},
	}},
	{Name: "checkpoint", Doc: "summarises the context and appends a self-retaining compaction", Args: []Arg{
		{Name: "continue", Type: Bool, Required: true, Doc: "continue after the checkpoint"},
		{Name: "attempt", Type: Int, Doc: "identifies the checkpoint; the host echoes it in summary_done"},
	}},
	{Name: "continue", Doc: "asks for one continuation"},
	{Name: "stop", Doc: "stops the run (cancels the otherwise unavoidable follow-up)"},
	{Name: "status", Doc: "sets the footer status line", Args: []Arg{
		{Name: "text", Type: String, Required: true, Doc: "the status line"},
	}},
	{Name: "repair", Doc: "inspects the session tail and completes a repairable reset boundary"},
	{Name: "save_param", Doc: "persists a changed param value in the project's settings", Args: []Arg{
		{Name: "name", Type: String, Required: true, Doc: "the param"},
		{Name: "value", Type: Int, Required: true, Doc: "its new value"},
	}},
	{Name: "suppress_summary", Doc: "answers before_tree with an empty summary, so no branch summary is generated from raw pre-reset history"},
	{Name: "clear_param", Doc: "removes a persisted param value so the policy default applies again", Args: []Arg{
		{Name: "name", Type: String, Required: true, Doc: "the param"},
	}},
	{Name: "ask", Doc: "asks the user for one value in a dialog (a command event with dialog true); consecutive ask effects with the same command form one dialog, and once every question is answered the host runs the command that caused the event again with the arguments `command` followed by the answers, in order, separated by spaces (an empty answer takes value; a cancelled dialog runs nothing)", Args: []Arg{
		{Name: "title", Type: String, Required: true, Doc: "the question"},
		{Name: "value", Type: String, Doc: "the current value, offered as the answer"},
		{Name: "command", Type: String, Required: true, Doc: "the command arguments the answers complete"},
	}},
}

var (
	eventIndex  = map[string]*Event{}
	effectIndex = map[string]*Effect{}
)

func init() {
	for i := range Events {
		eventIndex[Events[i].Name] = &Events[i]
	}
	for i := range Effects {
		effectIndex[Effects[i].Name] = &Effects[i]
	}
}

// LookupEvent returns the event of that name.
func LookupEvent(name string) (*Event, bool) {
	e, ok := eventIndex[name]
	return e, ok
}

// LookupEffect returns the effect of that name.
func LookupEffect(name string) (*Effect, bool) {
	e, ok := effectIndex[name]
	return e, ok
}

// AllFacts returns the common facts followed by the event's own.
func (e *Event) AllFacts() []Fact {
	out := make([]Fact, 0, len(CommonFacts)+len(e.Facts))
	out = append(out, CommonFacts...)
	return append(out, e.Facts...)
}

// EventNames lists every event name, sorted.
func EventNames() []string {
	out := make([]string, 0, len(Events))
	for _, e := range Events {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// EffectNames lists every effect name, sorted.
func EffectNames() []string {
	out := make([]string, 0, len(Effects))
	for _, e := range Effects {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}
