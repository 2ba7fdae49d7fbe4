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
	{Name: "session_start", Hook: "session_start", Facts: []Fact{
		{Name: "reason", Type: String, Default: "startup", Enum: startReasons},
	}},
	{Name: "session_tree", Hook: "session_tree"},
	{Name: "session_shutdown", Hook: "session_shutdown", Facts: []Fact{
		{Name: "reason", Type: String, Default: ""},
	}},
	{Name: "model_select", Hook: "model_select", Facts: []Fact{
		{Name: "model", Type: String, Default: ""},
	}},
	{Name: "toggle", Hook: "the policy's on/off command", Facts: []Fact{
		{Name: "on", Type: Bool, Default: true},
	}},
	{Name: "tool", Hook: "a policy tool executes", Facts: []Fact{
		{Name: "name", Type: String, Default: ""},
		{Name: "args", Type: Object, Default: nil},
	}},
	{Name: "command", Hook: "a policy command runs", Facts: []Fact{
		{Name: "name", Type: String, Default: ""},
		{Name: "args", Type: String, Default: ""},
		{Name: "dialog", Type: Bool, Default: false, Doc: "the host can ask the user with dialogs (Pi: ctx.hasUI, the terminal and RPC modes); the ask effect needs it"},
	}},
	{Name: "request", Hook: "context_with_system", Facts: []Fact{
		{Name: "user_input", Type: Bool, Default: false, Doc: "a real user message follows the latest reset boundary in the active window"},
	}},
	{Name: "turn_end", Hook: "turn_end", Facts: []Fact{
		{Name: "outcome", Type: String, Default: "completed", Enum: outcomes},
		{Name: "error", Type: String, Default: "", Enum: []string{"", "overflow", "other"}},
		{Name: "synthetic_abort", Type: Bool, Default: false},
		{Name: "tool_results", Type: Int, Default: int64(0)},
	}},
	{Name: "agent_end", Hook: "agent_end"},
	{Name: "before_settle", Hook: "agent_before_settle", Facts: []Fact{
		{Name: "outcome", Type: String, Default: "completed", Enum: outcomes},
	}},
	{Name: "settled", Hook: "agent_settled", Facts: []Fact{
		{Name: "aborted", Type: Bool, Default: false},
	}},
	{Name: "before_compact", Hook: "session_before_compact", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons},
		{Name: "will_retry", Type: Bool, Default: false},
		{Name: "signal_aborted", Type: Bool, Default: false},
		{Name: "after_reset", Type: Bool, Default: false, Doc: "the current session branch already holds a reset marker, so a summary would carry erased history back"},
	}},
	{Name: "compact_done", Hook: "session_compact", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons},
		{Name: "attempt", Type: Int, Default: int64(0)},
	}},
	{Name: "compact_failed", Hook: "session_compact_failed", Facts: []Fact{
		{Name: "reason", Type: String, Default: "manual", Enum: compactReasons},
		{Name: "attempt", Type: Int, Default: int64(0)},
		{Name: "error", Type: String, Default: ""},
		{Name: "aborted", Type: Bool, Default: false},
	}},
	{Name: "attempt_complete", Hook: "ctx.compact onComplete", Facts: []Fact{
		{Name: "attempt", Type: Int, Default: int64(0)},
	}},
	{Name: "attempt_error", Hook: "ctx.compact onError or throw", Facts: []Fact{
		{Name: "attempt", Type: Int, Default: int64(0)},
		{Name: "error", Type: String, Default: ""},
	}},
	{Name: "summary_done", Hook: "a checkpoint summary finished", Facts: []Fact{
		{Name: "ok", Type: Bool, Default: true},
		{Name: "error", Type: String, Default: ""},
		{Name: "attempt", Type: Int, Default: int64(0), Doc: "the attempt of the checkpoint effect this summary answers (0: none given)"},
		{Name: "aborted", Type: Bool, Default: false, Doc: "the summary was aborted (the user's abort, or the session being torn down); ok is false"},
		{Name: "already_compact", Type: Bool, Default: false, Doc: "the host found nothing to summarise: the context since the last compaction is what it keeps verbatim anyway (Pi: \"Nothing to compact\", \"Already compacted\"); ok is false"},
	}},
	{Name: "before_tree", Hook: "session_before_tree", Doc: "the user navigates the session tree and Pi is about to summarise the branch left", Facts: []Fact{
		{Name: "crosses_reset", Type: Bool, Default: false, Doc: "the branch left or the branch entered crosses a reset boundary (host/session.SuppressTreeSummary)"},
	}},
}

// Effects is the vocabulary of effects a host carries out.
var Effects = []Effect{
	{Name: "reply", Doc: "answers the tool call or command that caused the event", Args: []Arg{
		{Name: "text", Type: String, Required: true},
		{Name: "terminate", Type: Bool, Doc: "a tool result that ends the tool follow-up"},
	}},
	{Name: "notify", Doc: "shows a UI notice", Args: []Arg{
		{Name: "level", Type: String, Required: true, Enum: []string{"info", "warning", "error"}},
		{Name: "text", Type: String, Required: true},
	}},
	{Name: "inject", Doc: "adds a hidden message to this request, steers the running turn, or starts a turn when idle", Args: []Arg{
		{Name: "message", Type: String, Required: true, Message: true},
		{Name: "deliver", Type: String, Required: true, Enum: []string{"request", "steer", "turn"}},
	}},
	{Name: "commit_reset", Doc: "appends the retain-none reset boundary, then continues in the fresh window or stops", Args: []Arg{
		{Name: "continue", Type: Bool, Required: true},
		{Name: "stop", Type: Bool},
	}},
	{Name: "provide_reset", Doc: "answers before_compact with a retain-none reset boundary instead of a summary"},
	{Name: "cancel_compaction", Doc: "cancels the compaction", Args: []Arg{
		{Name: "text", Type: String},
	}},
	{Name: "compact", Doc: "starts a host compaction tagged with the attempt", Args: []Arg{
		{Name: "attempt", Type: Int, Required: true},
	}},
	{Name: "checkpoint", Doc: "summarises the context and appends a self-retaining compaction", Args: []Arg{
		{Name: "continue", Type: Bool, Required: true},
		{Name: "attempt", Type: Int, Doc: "identifies the checkpoint; the host echoes it in summary_done"},
	}},
	{Name: "continue", Doc: "asks for one continuation"},
	{Name: "stop", Doc: "stops the run (cancels the otherwise unavoidable follow-up)"},
	{Name: "status", Doc: "sets the footer status line", Args: []Arg{
		{Name: "text", Type: String, Required: true},
	}},
	{Name: "repair", Doc: "inspects the session tail and completes a repairable reset boundary"},
	{Name: "save_param", Doc: "persists a changed param value in the project's settings", Args: []Arg{
		{Name: "name", Type: String, Required: true},
		{Name: "value", Type: Int, Required: true},
	}},
	{Name: "suppress_summary", Doc: "answers before_tree with an empty summary, so no branch summary is generated from raw pre-reset history"},
	{Name: "clear_param", Doc: "removes a persisted param value so the policy default applies again", Args: []Arg{
		{Name: "name", Type: String, Required: true},
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
