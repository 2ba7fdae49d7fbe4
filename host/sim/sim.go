package sim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Default texts of the reset boundary's messages, for a policy that
// declares no message named `boot` or `continuation`.
const (
	DefaultBoot         = "This is a fresh context window. The previous window was reset on purpose: its conversation is no longer in your context, though the session history keeps it. Your notes are the record of what came before; read them before doing anything else."
	DefaultContinuation = "Continue the task in this fresh context window: read your notes, then pick up at the next step they record."
)

// Names of the policy messages the host reads for the reset boundary.
const (
	BootMessage         = "boot"
	ContinuationMessage = "continuation"
)

// InjectedType is the custom type of a hidden message the host adds for
// an `inject` or `continue` effect; details {name, windowId} name the
// policy message and the window it went to.
const InjectedType = "resetpolicy/message"

// Options configure a simulation. The zero value is ready to use and
// deterministic.
type Options struct {
	// Session starts from an existing session (a reopened file) instead
	// of a new one.
	Session *session.Session
	// Start is the wall-clock time of now_ms 0: entry timestamps are
	// Start plus the host clock. Zero means 2026-01-01T00:00:00Z.
	Start time.Time
	// SessionID and CWD go into a new session's header.
	SessionID, CWD string
	// MaxEvents bounds the host events of one simulation (a policy that
	// keeps asking for continuations would otherwise never settle); 0
	// means 10000.
	MaxEvents int
}

// Result is what a simulation produced.
type Result struct {
	Policy   *rules.Policy
	Scenario *scenario.Scenario
	// Lines is the timeline: one line per host event, in order.
	Lines []*Line
	// Session is the simulated session, ready to be written as Pi JSONL.
	Session *session.Session
	// Window is the active window at the end.
	Window string
	// Notices are the UI notices shown (notify effects and the host's own
	// warnings), in order.
	Notices []Notice
	// Replies are the command replies shown to the user.
	Replies []string
	// Status is the footer status line last set.
	Status string
	// Params are the save_param and clear_param effects, in order.
	Params []ParamChange
}

// Notice is one UI notice.
type Notice struct {
	Level string
	Text  string
}

// ParamChange is one save_param (Cleared false) or clear_param effect.
type ParamChange struct {
	Name    string
	Value   float64
	Cleared bool
}

// Error is a scenario the simulated host cannot follow, or a host event
// the policy rejects, at a step of the scenario.
type Error struct {
	Range hcl.Range
	Msg   string
}

func (e *Error) Error() string {
	if e.Range.Filename == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d,%d: %s", e.Range.Filename, e.Range.Start.Line, e.Range.Start.Column, e.Msg)
}

// Diagnostic returns the error as an HCL diagnostic pointing at the step.
func (e *Error) Diagnostic() *hcl.Diagnostic {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Scenario cannot continue", Detail: e.Msg}
	if e.Range.Filename != "" {
		r := e.Range
		d.Subject = &r
	}
	return d
}

// pending is a message waiting to be delivered: a user message, or a
// hidden message of the policy (name set).
type pending struct {
	user bool
	name string
	text string
}

// runStart is an agent run the host is asked to start once idle: the
// messages that start it (none: a context-only continuation).
type runStart struct {
	msgs []pending
}

// requestDraft is a hidden message injected into a request, made durable
// at the end of a completed turn in the same window.
type requestDraft struct {
	window, name, text string
}

// boundary collects the decisions of an actionable boundary (turn_end,
// before_settle): a continuation and a stop.
type boundary struct {
	cont, stop bool
}

// compactDecision collects the answer to before_compact.
type compactDecision struct {
	provide, cancel bool
	// checkpointed: a checkpoint effect answered the compaction with its
	// self-retaining summary (seed 002), which is the compaction.
	checkpointed bool
}

// treeDecision collects the answer to before_tree.
type treeDecision struct {
	suppress bool
}

// callCtx collects the replies to a policy tool call.
type callCtx struct {
	replies   []string
	terminate bool
}

// host is the simulated Pi host.
type host struct {
	pol *rules.Policy
	eng *engine.Engine
	es  *engine.Session
	// durable is the durable slots' values on the branch, as last
	// restored or persisted.
	durable map[string]any
	sess    *session.Session
	sc      *scenario.Scenario
	opts    Options
	res     *Result

	pos  int           // next step
	step scenario.Step // step being followed

	// Pi's state and settings
	window                             string
	winSeq                             int
	now                                int64
	enabled, autoReset, autoCompaction bool
	contextWindow, reserve             int64
	model                              string
	streaming                          bool
	turn                               int
	steerQ, followQ                    []pending
	overflowRetried                    bool

	// scripted outcomes
	summaries   []*scenario.Summary
	compactions []*scenario.Compaction

	// effects waiting for their moment
	drafts       []requestDraft
	trigger      *runStart
	deferred     []int64 // compact attempts, started once idle
	boundary     *boundary
	compaction   *compactDecision
	treeAnswer   *treeDecision
	call         *callCtx
	wantContinue bool
	stopRequest  bool
	stopRun      bool

	// timeline
	line         *Line
	pending      []*session.Entry
	pendingNotes []string
	prevDerived  map[string]string
	events       int
	marks        map[string]string
	idStart      uint32
}

// Run simulates the scenario under the policy. The result holds the
// timeline so far even when an error stops the simulation; an error is an
// *Error pointing at the step the host could not follow.
func Run(p *rules.Policy, sc *scenario.Scenario, opts Options) (*Result, error) {
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if opts.SessionID == "" {
		opts.SessionID = "019b7c00-0000-7000-8000-000000000001"
	}
	if opts.CWD == "" {
		opts.CWD = "/work/project"
	}
	if opts.MaxEvents == 0 {
		opts.MaxEvents = 10000
	}
	eng := engine.New(p)
	h := &host{pol: p, eng: eng, es: eng.NewSession(), sc: sc, opts: opts,
		res:         &Result{Policy: p, Scenario: sc},
		prevDerived: map[string]string{}, marks: map[string]string{}, idStart: 1}
	hs := sc.Host
	h.enabled, h.autoReset, h.autoCompaction = hs.Enabled, hs.AutoReset, hs.AutoCompaction
	h.contextWindow, h.reserve, h.model = hs.ContextWindow, hs.Reserve, hs.Model
	if opts.Session != nil {
		// A copy read with the simulation's own clock and ids.
		var buf strings.Builder
		if _, err := opts.Session.WriteTo(&buf); err != nil {
			return h.res, &Error{Msg: err.Error()}
		}
		h.idStart = nextID(opts.Session)
		s, err := session.Read(strings.NewReader(buf.String()), h.sessionOptions())
		if err != nil {
			return h.res, &Error{Msg: err.Error()}
		}
		h.sess = s
	} else {
		h.sess = session.New(h.sessionOptions())
		e, err := h.sess.AppendMessage(h.systemMessage())
		if err != nil {
			return h.res, &Error{Msg: err.Error()}
		}
		h.add(e)
	}
	h.adoptWindow()
	h.restoreDurable()
	err := h.simulate()
	h.res.Session, h.res.Window = h.sess, h.window
	return h.res, err
}

// sessionOptions make the session deterministic: the scenario's clock,
// sequential ids, and the host's token estimate for compactions.
func (h *host) sessionOptions() session.Options {
	return session.Options{
		ID:           h.opts.SessionID,
		CWD:          h.opts.CWD,
		Now:          func() time.Time { return h.opts.Start.Add(time.Duration(h.now) * time.Millisecond) },
		NewID:        session.SeqIDs(h.idStart),
		FallbackID:   session.RandomUUID,
		TokensBefore: h.tokensOf,
	}
}

// systemMessage is the prompt and tool loadout a new session starts with:
// Pi's coding tools and the tools the policy declares.
func (h *host) systemMessage() session.SystemMessage {
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	tools := []session.Tool{
		{Name: "read", Description: "Read a file.", Parameters: obj},
		{Name: "write", Description: "Write a file.", Parameters: obj},
		{Name: "edit", Description: "Edit a file.", Parameters: obj},
		{Name: "bash", Description: "Run a shell command.", Parameters: obj},
	}
	for _, t := range h.pol.Tools {
		props := map[string]any{}
		var required []string
		for _, p := range t.Parameters {
			props[p.Name] = map[string]any{"type": p.Type, "description": p.Description}
			if p.Required {
				required = append(required, p.Name)
			}
		}
		schema := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			schema["required"] = required
		}
		tools = append(tools, session.Tool{Name: t.Name, Description: strings.TrimSpace(t.Description), Parameters: session.Raw(schema)})
	}
	return session.SystemMessage{Content: session.Text("You are a coding agent working in " + h.opts.CWD + "."),
		ToolsAdded: tools, Timestamp: h.millis()}
}

func (h *host) millis() int64 { return h.opts.Start.UnixMilli() + h.now }

// adoptWindow takes the active window from the branch: the window of the
// latest reset on it, or w1; new ids continue after the highest in the
// file, so that no two windows of a session share one.
func (h *host) adoptWindow() {
	h.window = session.ActiveWindow(h.sess.Path())
	if h.window == "" {
		h.window = "w1"
	}
	if h.winSeq < 1 {
		h.winSeq = 1
	}
	for _, e := range h.sess.Entries() {
		var n int
		if _, err := fmt.Sscanf(e.WindowID(), "w%d", &n); err == nil && n > h.winSeq {
			h.winSeq = n
		}
	}
}

func (h *host) nextWindow() string {
	h.winSeq++
	return fmt.Sprintf("w%d", h.winSeq)
}

// fail stops the simulation at the current step.
func (h *host) fail(format string, args ...any) error {
	e := &Error{Msg: fmt.Sprintf(format, args...)}
	if h.step != nil {
		e.Range = h.step.Range()
	} else if h.sc != nil {
		e.Range = h.sc.DeclRange
	}
	return e
}

// simulate follows the scenario from session start to its last step.
func (h *host) simulate() error {
	if err := h.event("session_start", map[string]any{"reason": "startup"}); err != nil {
		return err
	}
	if err := h.drainIdle(); err != nil {
		return err
	}
	for h.pos < len(h.sc.Steps) {
		h.step = h.sc.Steps[h.pos]
		h.pos++
		if err := h.idleStep(h.step); err != nil {
			return err
		}
		if err := h.drainIdle(); err != nil {
			return err
		}
	}
	if len(h.pending) > 0 || len(h.pendingNotes) > 0 {
		// Entries and notes after the last host event get a line of
		// their own so that nothing the host did is left out.
		h.res.Lines = append(h.res.Lines, &Line{Turn: h.turn, Window: h.window, Tokens: h.tokens(),
			Remaining: h.contextWindow - h.tokens(), Entries: h.pending, Notes: h.pendingNotes})
		h.pending, h.pendingNotes = nil, nil
	}
	return nil
}

// drainIdle carries out what waits for the host to be idle: compaction
// attempts and runs that effects asked for.
func (h *host) drainIdle() error {
	for {
		switch {
		case len(h.deferred) > 0:
			a := h.deferred[0]
			h.deferred = h.deferred[1:]
			if err := h.attempt(a); err != nil {
				return err
			}
		case h.trigger != nil:
			t := h.trigger
			h.trigger = nil
			if err := h.startRun(t.msgs, false); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// idleStep follows one step while the agent is idle.
func (h *host) idleStep(st scenario.Step) error {
	switch st := st.(type) {
	case *scenario.User:
		return h.startRun([]pending{{user: true, text: st.Text}}, true)
	case *scenario.Assistant:
		return h.fail("no model request is waiting for this answer: the agent is idle (a user step, a command or an effect starts a run)")
	case *scenario.Steer, *scenario.FollowUp:
		return h.fail("the agent is idle, so there is no queue to put a %s message in: a message typed while idle is a user step", st.Kind())
	case *scenario.Compact:
		ok, why, err := h.hostCompaction("manual", false, 0)
		if err == nil && !ok {
			h.notice("error", "Compaction failed: "+why)
		}
		return err
	case *scenario.Reopen:
		return h.reopen()
	case *scenario.Mark:
		if h.sess.Leaf() == "" {
			return h.fail("mark %q: the session has no entry yet", st.Name)
		}
		h.marks[st.Name] = h.sess.Leaf()
		return nil
	case *scenario.Tree:
		return h.tree(st)
	}
	return h.anyTimeStep(st)
}

// streamingStep follows one step read while a run waits for the model.
func (h *host) streamingStep(st scenario.Step) error {
	switch st := st.(type) {
	case *scenario.User:
		return h.fail("the agent is streaming: a message typed now is queued, as a steer or follow_up step")
	case *scenario.Steer:
		h.steerQ = append(h.steerQ, pending{user: true, text: st.Text})
		h.notef("steering queued: %s", quote(st.Text, 32))
		return nil
	case *scenario.FollowUp:
		h.followQ = append(h.followQ, pending{user: true, text: st.Text})
		h.notef("follow-up queued: %s", quote(st.Text, 32))
		return nil
	case *scenario.Compact, *scenario.Reopen, *scenario.Mark, *scenario.Tree:
		return h.fail("a %s step needs the agent to be idle, but a model request is waiting for an assistant step", st.Kind())
	}
	return h.anyTimeStep(st)
}

// anyTimeStep follows steps that may come idle or streaming.
func (h *host) anyTimeStep(st scenario.Step) error {
	switch st := st.(type) {
	case *scenario.Command:
		if !h.hasCommand(st.Name) {
			return h.fail("policy %s has no command /%s (its commands: %s)", h.pol.Name, st.Name, h.commandNames())
		}
		return h.event("command", map[string]any{"name": st.Name, "args": st.Args})
	case *scenario.Toggle:
		h.enabled = st.On
		return h.event("toggle", map[string]any{"on": st.On})
	case *scenario.Settings:
		if st.AutoCompaction != nil {
			h.autoCompaction = *st.AutoCompaction
			h.notef("setting auto_compaction=%v", h.autoCompaction)
		}
		if st.AutoReset != nil {
			h.autoReset = *st.AutoReset
			h.notef("setting auto_reset=%v", h.autoReset)
		}
		if st.Reserve != nil {
			h.reserve = *st.Reserve
			h.notef("setting reserve=%d", h.reserve)
		}
		return nil
	case *scenario.Model:
		h.model = st.Name
		if st.ContextWindow > 0 {
			h.contextWindow = st.ContextWindow
		}
		h.add(h.sess.AppendModelChange("sim", st.Name))
		return h.event("model_select", map[string]any{"model": st.Name})
	case *scenario.Wait:
		h.now += st.Millis
		h.notef("clock +%s", time.Duration(st.Millis)*time.Millisecond)
		return nil
	case *scenario.Summary:
		h.summaries = append(h.summaries, st)
		return nil
	case *scenario.Compaction:
		h.compactions = append(h.compactions, st)
		return nil
	}
	return h.fail("a %s step cannot come here", st.Kind())
}

func (h *host) hasCommand(name string) bool {
	for _, c := range h.pol.Commands {
		if c.Name == name {
			return true
		}
	}
	return false
}

func (h *host) commandNames() string {
	var out []string
	for _, c := range h.pol.Commands {
		out = append(out, "/"+c.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func (h *host) isPolicyTool(name string) bool {
	for _, t := range h.pol.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// reopen closes the session, writes its file, reads it back and starts
// it again with fresh policy state.
func (h *host) reopen() error {
	if err := h.event("session_shutdown", map[string]any{"reason": "quit"}); err != nil {
		return err
	}
	var buf strings.Builder
	if _, err := h.sess.WriteTo(&buf); err != nil {
		return h.fail("writing the session: %v", err)
	}
	h.idStart = nextID(h.sess)
	s, err := session.Read(strings.NewReader(buf.String()), h.sessionOptions())
	if err != nil {
		return h.fail("reading the session back: %v", err)
	}
	h.sess = s
	h.es = h.eng.NewSession()
	h.steerQ, h.followQ, h.drafts = nil, nil, nil
	h.adoptWindow()
	h.restoreDurable()
	h.notef("session file written (%d entries) and read back", len(s.Entries()))
	return h.event("session_start", map[string]any{"reason": "resume"})
}

// tree navigates to a marked entry (/tree). When a summary is wanted the
// policy decides at before_tree whether to suppress it; the host reports
// whether either branch crosses a reset (seed 000).
func (h *host) tree(st *scenario.Tree) error {
	target, ok := h.marks[st.Target]
	if !ok {
		return h.fail("tree %q: no mark of that name comes before this step", st.Target)
	}
	oldPath, newPath := h.sess.Path(), h.sess.PathTo(target)
	suppress := false
	if st.Summarize {
		td := &treeDecision{}
		h.treeAnswer = td
		err := h.event("before_tree", map[string]any{"crosses_reset": session.SuppressTreeSummary(oldPath, newPath)})
		h.treeAnswer = nil
		if err != nil {
			return err
		}
		suppress = td.suppress
	}
	switch {
	case st.Summarize && suppress:
		if err := h.sess.Branch(target); err != nil {
			return h.fail("%v", err)
		}
		h.notef("tree summary suppressed: a branch crosses a reset")
	case st.Summarize:
		no := false
		e, err := h.sess.BranchWithSummary(target, fmt.Sprintf("Summary of the abandoned branch (%d entries).", len(oldPath)-len(newPath)), nil, &no)
		if err != nil {
			return h.fail("%v", err)
		}
		h.add(e)
	default:
		if err := h.sess.Branch(target); err != nil {
			return h.fail("%v", err)
		}
	}
	h.drafts = nil
	h.adoptWindow()
	h.restoreDurable()
	h.notef("tree: leaf moved to %s", target)
	return h.event("session_tree", nil)
}

// add attributes appended entries to the line being carried out, or to
// the next line.
func (h *host) add(es ...*session.Entry) {
	for _, e := range es {
		if e == nil {
			continue
		}
		if h.line != nil {
			h.line.Entries = append(h.line.Entries, e)
		} else {
			h.pending = append(h.pending, e)
		}
	}
}

func (h *host) notef(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if h.line != nil {
		h.line.Notes = append(h.line.Notes, n)
	} else {
		h.pendingNotes = append(h.pendingNotes, n)
	}
}

// noteLast adds a note to the latest line: the outcome of its effects,
// which the host learns only after the event.
func (h *host) noteLast(format string, args ...any) {
	if h.line == nil && len(h.res.Lines) > 0 {
		l := h.res.Lines[len(h.res.Lines)-1]
		l.Notes = append(l.Notes, fmt.Sprintf(format, args...))
		return
	}
	h.notef(format, args...)
}

func (h *host) notice(level, text string) {
	h.res.Notices = append(h.res.Notices, Notice{Level: level, Text: text})
}

// nextID is where a deterministic id sequence continues in a session: one
// past its highest 8-hex-digit id.
func nextID(s *session.Session) uint32 {
	var max uint32
	for _, e := range s.Entries() {
		var n uint32
		if len(e.ID()) == 8 {
			if _, err := fmt.Sscanf(e.ID(), "%08x", &n); err == nil && n > max {
				max = n
			}
		}
	}
	return max + 1
}
