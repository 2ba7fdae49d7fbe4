package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// Line is one host event of the timeline: the event with its own facts,
// the common facts worth reading (turn, window, tokens, remaining), the
// policy's derived values that changed, the rules that fired, the effects
// and what the host did with them: the entries appended and its notes.
type Line struct {
	Event string
	// Facts are the event's own facts as the host sent them (nil for
	// none).
	Facts  map[string]any
	Turn   int
	Window string
	// Now is the host clock (now_ms).
	Now       int64
	Idle      bool
	Queued    bool
	Tokens    int64
	Remaining int64
	// Derived are the policy's derived numbers and bools that changed
	// since the previous line, evaluated as the rules saw them.
	Derived []Value
	// Read are the derived values the rules that fired read.
	Read    []Value
	Rules   []string
	Effects []engine.Effect
	// Entries are the session entries appended since the previous line
	// and while this event's effects were carried out.
	Entries []*session.Entry
	// Notes are what the host did or refused that no entry shows.
	Notes []string
}

// Value is a derived value shown on a line.
type Value struct {
	Name string
	Text string
}

// Fact returns one of the line's own facts.
func (l *Line) Fact(name string) any { return l.Facts[name] }

// Fired reports whether the rule fired on this line.
func (l *Line) Fired(rule string) bool {
	for _, r := range l.Rules {
		if r == rule {
			return true
		}
	}
	return false
}

// Effect returns the first effect of that name.
func (l *Line) Effect(name string) (engine.Effect, bool) {
	for _, e := range l.Effects {
		if e.Name == name {
			return e, true
		}
	}
	return engine.Effect{}, false
}

// Label is the event with the facts that tell it apart.
func (l *Line) Label() string {
	f := func(n string) any { return l.Facts[n] }
	str := func(n string) string { s, _ := f(n).(string); return s }
	num := func(n string) int64 {
		switch v := f(n).(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		}
		return 0
	}
	yes := func(n string) bool { b, _ := f(n).(bool); return b }
	switch l.Event {
	case "":
		return "(end)"
	case "session_start", "session_shutdown", "before_settle":
		if s := str("reason") + str("outcome"); s != "" {
			return l.Event + "(" + s + ")"
		}
	case "model_select":
		return "model_select(" + str("model") + ")"
	case "toggle":
		if yes("on") {
			return "toggle(on)"
		}
		return "toggle(off)"
	case "tool":
		return "tool(" + str("name") + ")"
	case "command":
		return strings.TrimSpace("command(/"+str("name")+" "+str("args")) + ")"
	case "turn_end":
		switch {
		case str("outcome") == "error":
			return "turn_end(error: " + str("error") + ")"
		case yes("synthetic_abort"):
			return "turn_end(aborted, synthetic)"
		case str("outcome") == "aborted":
			return "turn_end(aborted)"
		}
		if n := num("tool_results"); n != 1 {
			return fmt.Sprintf("turn_end(completed, %d tools)", n)
		}
		return "turn_end(completed, 1 tool)"
	case "settled":
		if yes("aborted") {
			return "settled(aborted)"
		}
	case "before_compact":
		s := str("reason")
		if yes("will_retry") {
			s += ", will_retry"
		}
		if yes("signal_aborted") {
			s += ", signal_aborted"
		}
		if yes("after_reset") {
			s += ", after_reset"
		}
		return "before_compact(" + s + ")"
	case "before_tree":
		if yes("crosses_reset") {
			return "before_tree(crosses_reset)"
		}
	case "compact_done", "compact_failed":
		s := str("reason")
		if n := num("attempt"); n != 0 {
			s += fmt.Sprintf(", attempt %d", n)
		}
		if yes("aborted") {
			s += ", aborted"
		} else if e := str("error"); e != "" {
			s += ", " + quote(e, 24)
		}
		return l.Event + "(" + s + ")"
	case "attempt_complete":
		return fmt.Sprintf("attempt_complete(%d)", num("attempt"))
	case "attempt_error":
		return fmt.Sprintf("attempt_error(%d, %s)", num("attempt"), quote(str("error"), 24))
	case "summary_done":
		if yes("ok") {
			return "summary_done(ok)"
		}
		return "summary_done(failed, " + quote(str("error"), 24) + ")"
	}
	return l.Event
}

// String formats the line: turn, window, event, tokens and remaining in
// columns, then {changed derived values}, the rules that fired (- for
// none) => the effects, + the entries appended, # the host's notes.
func (l *Line) String() string { return l.Format(Layout{LabelWidth: defaultLabelWidth}) }

// Format formats the line in a layout.
func (l *Line) Format(lay Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4d %-3s %-*s %7d %7d ", l.Turn, l.Window, lay.LabelWidth, l.Label(), l.Tokens, l.Remaining)
	var parts []string
	if d := l.derivedText(); d != "" {
		parts = append(parts, d)
	}
	if l.Event != "" {
		if len(l.Rules) == 0 {
			parts = append(parts, "-")
		} else {
			parts = append(parts, strings.Join(l.Rules, ", "))
		}
	}
	if len(l.Effects) > 0 {
		var es []string
		for _, e := range l.Effects {
			es = append(es, describeEffect(e, lay.cut()))
		}
		parts = append(parts, "=> "+strings.Join(es, ", "))
	}
	if len(l.Entries) > 0 {
		var es []string
		for _, e := range l.Entries {
			es = append(es, DescribeEntry(e))
		}
		parts = append(parts, "+ "+strings.Join(es, ", "))
	}
	if len(l.Notes) > 0 {
		parts = append(parts, "# "+strings.Join(l.Notes, "; "))
	}
	b.WriteString(strings.Join(parts, "  "))
	return strings.TrimRight(b.String(), " ")
}

// DescribeEffect writes an effect shortly: literal arguments (messages,
// enums) by value, text quoted and cut, others as name=value.
func DescribeEffect(e engine.Effect) string { return describeEffect(e, 32) }

// describeEffect is DescribeEffect with texts cut to n characters (0:
// whole).
func describeEffect(e engine.Effect, n int) string {
	if len(e.Args) == 0 {
		return e.Name
	}
	def, _ := contract.LookupEffect(e.Name)
	var args []string
	for _, a := range e.Args {
		literal := false
		if def != nil {
			if ca, ok := def.Arg(a.Name); ok {
				literal = ca.Literal()
			}
		}
		switch v := a.Value.(type) {
		case string:
			switch {
			case literal:
				args = append(args, v)
			case a.Name == "text":
				args = append(args, quote(v, n))
			default:
				args = append(args, a.Name+"="+quote(v, n))
			}
		case float64:
			args = append(args, a.Name+"="+lang.FormatNum(v))
		default:
			args = append(args, fmt.Sprintf("%s=%v", a.Name, v))
		}
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")"
}

// DescribeEntry writes an appended entry shortly: the message role and
// text, tool calls, the reset artifacts with their window.
func DescribeEntry(e *session.Entry) string {
	switch e.Type() {
	case session.TypeMessage:
		switch e.Role() {
		case "user":
			var m session.UserMessage
			_ = json.Unmarshal(e.Message(), &m)
			return "user " + quote(m.Content.String(), 24)
		case "assistant":
			m, _ := session.DecodeAssistant(e.Message())
			switch m.StopReason {
			case "aborted":
				return "assistant(aborted)"
			case "error":
				return "assistant(error)"
			}
			s := "assistant"
			for _, b := range m.Content {
				if b.Type == "text" {
					s += " " + quote(b.Text, 24)
					break
				}
			}
			var calls []string
			for _, c := range m.ToolCalls() {
				calls = append(calls, c.Name)
			}
			if len(calls) > 0 {
				s += " [" + strings.Join(calls, ", ") + "]"
			}
			return s
		case "toolResult":
			var m session.ToolResultMessage
			_ = json.Unmarshal(e.Message(), &m)
			return "toolResult(" + m.ToolName + ")"
		}
		return e.Role()
	case session.TypeCustomMessage:
		switch {
		case session.IsBoot(e):
			return "boot(" + e.WindowID() + ")"
		case session.IsContinuation(e):
			return "continuation(" + e.WindowID() + ")"
		case e.CustomType() == InjectedType:
			var d struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(e.Field("details"), &d)
			return "hidden(" + d.Name + ")"
		}
		return "custom_message(" + e.CustomType() + ")"
	case session.TypeCustom:
		if session.IsMarker(e) {
			return "marker(" + e.WindowID() + ")"
		}
		return "custom(" + e.CustomType() + ")"
	case session.TypeCompaction:
		switch {
		case session.IsTrustedCheckpoint(e):
			if w := e.WindowID(); w != "" {
				return "compaction(retain-none, " + w + ")"
			}
			return "compaction(retain-none)"
		case session.IsSelfRetaining(e):
			return "compaction(checkpoint)"
		}
		return "compaction(summary)"
	case session.TypeContextEdit:
		return "context_edit"
	case session.TypeModelChange:
		return "model_change(" + e.Str("modelId") + ")"
	}
	return e.Type()
}

// quote cuts s to n characters and quotes it.
func quote(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if n > 0 && len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return `"` + s + `"`
}

// Header describes the simulation: scenario, policy with its params in
// force, host settings, and how to read the lines.
func Header(r *Result) string { return header(r, Layout{LabelWidth: defaultLabelWidth}) }

func header(r *Result, lay Layout) string {
	var b strings.Builder
	sc := r.Scenario
	title := sc.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "scenario  %s (%s)\n", title, sc.File)
	var params []string
	for _, p := range r.Policy.Params {
		t, v := rules.ParamValue(p.Value)
		params = append(params, p.Name+"="+lang.FormatValue(t, v))
	}
	fmt.Fprintf(&b, "policy    %s", r.Policy.Name)
	if len(params) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(params, " "))
	}
	b.WriteString("\n")
	h := sc.Host
	onOff := map[bool]string{true: "on", false: "off"}
	fmt.Fprintf(&b, "host      context_window=%d reserve=%d auto_compaction=%s auto_reset=%s enabled=%s model=%s\n",
		h.ContextWindow, h.Reserve, onOff[h.AutoCompaction], onOff[h.AutoReset], onOff[h.Enabled], h.Model)
	for i, d := range r.Policy.Derived {
		if d.Prog == nil {
			continue
		}
		label := "          "
		if i == 0 {
			label = "derived   "
		}
		fmt.Fprintf(&b, "%s%s = %s\n", label, d.Name, d.Prog.Source)
	}
	b.WriteString("reading   {derived values that changed, * read by a rule that fired}  rules fired (- none)  => effects  + entries appended  # host notes\n\n")
	fmt.Fprintf(&b, "%4s %-3s %-*s %7s %7s\n", "turn", "win", lay.LabelWidth, "event", "tokens", "remain")
	return b.String()
}

// Footer sums the simulation up.
func Footer(r *Result) string {
	windows := map[string]bool{}
	for _, e := range r.Session.Path() {
		if (session.IsMarker(e) || session.IsTrustedCheckpoint(e)) && e.WindowID() != "" {
			windows[e.WindowID()] = true
		}
	}
	resets := len(windows)
	return fmt.Sprintf("\n%d host events; window %s after %d reset(s); %d entries in the session\n",
		len(r.Lines), r.Window, resets, len(r.Session.Entries()))
}

// WriteTimeline prints the header, one line per host event and the
// footer.
func WriteTimeline(w io.Writer, r *Result) error { return WriteTimelineLayout(w, r, Layout{}) }

// WriteTimelineLayout is WriteTimeline in a layout; the event column is
// as wide as the longest label, at least the default width.
func WriteTimelineLayout(w io.Writer, r *Result, lay Layout) error {
	lay.LabelWidth = defaultLabelWidth
	for _, l := range r.Lines {
		lay.LabelWidth = max(lay.LabelWidth, utf8.RuneCountInString(l.Label()))
	}
	var b strings.Builder
	b.WriteString(header(r, lay))
	for _, l := range r.Lines {
		b.WriteString(l.Format(lay))
		b.WriteString("\n")
	}
	if r.Session != nil {
		b.WriteString(Footer(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
