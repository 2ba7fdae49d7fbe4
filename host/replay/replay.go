package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// Settings are the host settings a replay assumes.
type Settings struct {
	// ContextWindow overrides the model table (0: from the model).
	ContextWindow int64
	// Reserve is Pi's compaction.reserveTokens (default 16384).
	Reserve int64
	// KeepRecent is Pi's compaction.keepRecentTokens (default 20000),
	// what a summarising compaction keeps of the recent context.
	KeepRecent int64
	// AutoCompaction is Pi's compaction.enabled (default true).
	AutoCompaction bool
}

// DefaultSettings are Pi 1.6's defaults.
func DefaultSettings() Settings {
	return Settings{Reserve: 16384, KeepRecent: 20000, AutoCompaction: true}
}

// Config is one setting to replay under: a compiled policy with its
// params, and the host settings.
type Config struct {
	Label    string // how reports name the setting ("warning_runway=8192")
	Engine   *engine.Engine
	Settings Settings
	// MaxDecisions bounds the decisions kept per session (default 10000);
	// more are counted in Report.DecisionsDropped.
	MaxDecisions int
	// Points keeps the context of every request for plots.
	Points bool
}

// Replayer replays sessions under one Config. It is not safe for
// concurrent use; give each goroutine its own.
type Replayer struct {
	cfg   Config
	bs    *builders
	tools map[string]bool
}

// New returns a replayer.
func New(cfg Config) *Replayer {
	if cfg.MaxDecisions <= 0 {
		cfg.MaxDecisions = 10000
	}
	rp := &Replayer{cfg: cfg, bs: newBuilders(), tools: map[string]bool{}}
	for _, t := range cfg.Engine.Policy().Tools {
		rp.tools[t.Name] = true
	}
	return rp
}

// PolicyTools are the tools the policy declares (their arguments are
// worth keeping when reading files).
func (rp *Replayer) PolicyTools() map[string]bool { return rp.tools }

// run is the state of one session's replay.
type run struct {
	rp  *Replayer
	es  *engine.Session
	rep *Report

	window    string
	windowN   int
	now       int64
	tokens    int64 // the context as the host would report it now
	projected bool  // tokens are projected (the replay left the record)
	ctxWindow int64
	boot      int64 // the context of a fresh window

	rec        int64 // the recorded context at the latest point
	pendingEst int64 // bytes/4 of messages since the latest usage
	inRun      bool
	turn       int
	turnOpen   bool
	outcome    string // of the latest turn
	errKind    string
	results    int64
	reset      bool // the replay has reset the window at least once
	userAfter  bool // a user message followed the latest replayed reset
	inCompact  bool // deciding a recorded compaction
	cancelled  bool
	replaced   bool
	depth      int
	// path and pos: the branch and the entry being replayed, for the
	// look-ahead that tells a reset the record also made.
	path []*sessionfile.Entry
	pos  int
	// agreed: the replayed policy committed the reset the record makes
	// next; the record's marker names the new window.
	agreed bool
}

// Replay decides one session's branch (leaf "": the active branch).
func (rp *Replayer) Replay(f *sessionfile.File, leaf string) (*Report, error) {
	path, err := f.Branch(leaf)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Session: f.SessionID, File: f.Name, Version: f.Version, Label: rp.cfg.Label,
		Policy: rp.cfg.Engine.Policy().Name, Decisions: []Decision{}, Errors: []string{},
		Skipped: f.Skipped, Joined: f.Joined,
	}
	if len(path) > 0 {
		rep.Leaf = path[len(path)-1].ID
	}
	for _, p := range f.Problems {
		rep.Errors = append(rep.Errors, p.String())
	}
	r := &run{rp: rp, es: rp.cfg.Engine.NewSession(), rep: rep, window: "w1", windowN: 1}
	r.setModel(firstModel(path))
	r.boot = bootTokens(path)
	if len(path) > 0 {
		r.now = path[0].Millis
	}
	reason := "startup"
	if f.ParentSession != "" {
		reason = "fork"
	}
	r.event("session_start", fs("reason", reason))
	r.path = path
	for i, e := range path {
		r.pos = i
		if e.Millis > 0 {
			r.now = e.Millis
		}
		r.entry(e)
	}
	r.closeTurn()
	r.endRun()
	return rep, nil
}

func firstModel(path []*sessionfile.Entry) string {
	for _, e := range path {
		switch {
		case e.Type == session.TypeModelChange:
			return e.ModelID
		case e.Role == "assistant" && e.Model != "":
			return e.Model
		}
	}
	return ""
}

// bootTokens is the context of a fresh window: the session's first
// measured request (system prompt, tools and the first prompt).
func bootTokens(path []*sessionfile.Entry) int64 {
	for _, e := range path {
		if e.Role == "assistant" && validUsage(e) {
			return e.RequestTokens()
		}
	}
	return 0
}

func validUsage(e *sessionfile.Entry) bool {
	return e.HasUsage && e.StopReason != "error" && e.StopReason != "aborted" && e.ContextTokens() > 0
}

func (r *run) setModel(model string) {
	r.rep.Model = model
	switch {
	case r.rp.cfg.Settings.ContextWindow > 0:
		r.ctxWindow, r.rep.WindowFrom = r.rp.cfg.Settings.ContextWindow, "flag"
	default:
		w, known := ContextWindow(model)
		r.ctxWindow, r.rep.WindowFrom = w, "model"
		if !known {
			r.rep.WindowFrom = "default"
		}
	}
	r.rep.ContextWindow = r.ctxWindow
}

func (r *run) entry(e *sessionfile.Entry) {
	switch e.Type {
	case session.TypeMessage:
		switch e.Role {
		case "user":
			r.closeTurn()
			r.endRun()
			r.pendingEst += int64(e.Bytes) / 4
			if r.reset {
				r.userAfter = true
			}
			r.thresholdCompaction()
			r.inRun = true
		case "assistant":
			r.closeTurn()
			r.inRun = true
			r.answer(e)
		case "toolResult":
			r.results++
			r.pendingEst += int64(e.Bytes) / 4
		case "custom":
			r.customMessage(e)
		default:
			r.pendingEst += int64(e.Bytes) / 4
		}
	case session.TypeCustomMessage:
		r.customMessage(e)
	case session.TypeCustom:
		if e.IsMarker() {
			r.recordedReset(e)
		}
	case session.TypeCompaction:
		if e.IsResetCompaction() {
			// The first entry of a recorded reset boundary; its marker
			// follows and switches the window.
			return
		}
		r.closeTurn()
		r.recordedCompaction(e)
	case session.TypeModelChange:
		r.setModel(e.ModelID)
		model := e.ModelID
		if e.Provider != "" {
			model = e.Provider + "/" + e.ModelID
		}
		r.event("model_select", fs("model", model))
	case session.TypeSessionInfo:
		r.rep.Name = e.Name
	case session.TypeBranchSummary:
		r.closeTurn()
		r.endRun()
		r.event("session_tree")
	}
}

func (r *run) customMessage(e *sessionfile.Entry) {
	if e.IsBoot() {
		// The boot of a recorded reset: part of the fresh window, whose
		// size the next measured request tells.
		return
	}
	r.pendingEst += int64(e.Bytes) / 4
}

// answer is one model turn: its request, then its tool calls.
func (r *run) answer(e *sessionfile.Entry) {
	// Pi compacts before a turn as before a prompt.
	r.thresholdCompaction()
	r.turn++
	r.rep.Turns++
	req := r.rec + r.pendingEst
	measured := validUsage(e)
	if measured {
		req = e.RequestTokens()
	}
	r.observe(req)
	r.pendingEst = 0
	if r.rp.cfg.Points {
		r.rep.Points = append(r.rep.Points, Point{Turn: r.turn, Tokens: r.tokens, Projected: r.projected})
	}
	r.event("request", fb("user_input", r.reset && r.userAfter))
	r.turnOpen, r.results, r.errKind = true, 0, ""
	switch e.StopReason {
	case "error":
		r.outcome, r.errKind = "error", "other"
		if isOverflow(e.ErrorMessage) {
			r.errKind = "overflow"
		}
	case "aborted":
		r.outcome = "aborted"
	default:
		r.outcome = "completed"
	}
	for _, c := range e.ToolCalls {
		if r.rp.tools[c.Name] {
			r.event("tool", fs("name", c.Name), fo("args", toolArgs(c.Args)))
		}
	}
	if measured {
		r.observe(e.ContextTokens())
	}
}

// observe moves the context to a recorded figure: as it is while the
// replay follows the record, by the recorded growth once it has left it.
func (r *run) observe(recorded int64) {
	if recorded > r.rep.RecordedPeakTokens {
		r.rep.RecordedPeakTokens = recorded
	}
	if r.projected {
		if d := recorded - r.rec; d > 0 {
			r.tokens += d
		}
	} else {
		r.tokens = recorded
	}
	r.rec = recorded
}

func (r *run) closeTurn() {
	if !r.turnOpen {
		return
	}
	r.turnOpen = false
	r.rec += r.pendingEst
	if r.projected {
		r.tokens += r.pendingEst
	} else {
		r.tokens = r.rec
	}
	r.pendingEst = 0
	r.event("turn_end", fs("outcome", r.outcome), fs("error", r.errKind), fn("tool_results", r.results))
}

func (r *run) endRun() {
	if !r.inRun {
		return
	}
	r.event("agent_end")
	r.event("before_settle", fs("outcome", r.outcome))
	r.inRun = false
	r.event("settled", fb("aborted", r.outcome == "aborted"))
}

// recordedCompaction replays a compaction of the record, unless the
// replay has left the record.
func (r *run) recordedCompaction(e *sessionfile.Entry) {
	r.rep.RecordedCompactions++
	if r.projected {
		r.rep.NotReplayed++
		return
	}
	reason := "manual"
	switch {
	case r.outcome == "error" && r.errKind == "overflow":
		reason = "overflow"
	case e.FromHook:
		reason = "manual"
	case r.rp.cfg.Settings.AutoCompaction && r.rec > r.ctxWindow-r.rp.cfg.Settings.Reserve:
		reason = "threshold"
	}
	r.inCompact, r.cancelled, r.replaced = true, false, false
	r.event("before_compact", fs("reason", reason), fb("will_retry", reason == "overflow"))
	r.inCompact = false
	if r.cancelled || r.replaced {
		return
	}
	r.event("compact_done", fs("reason", reason))
}

// recordedReset is a reset marker of the record: a new window.
func (r *run) recordedReset(e *sessionfile.Entry) {
	r.rep.RecordedResets++
	r.closeTurn()
	if r.agreed {
		// The policy committed this very reset: the record goes on
		// describing the window.
		r.agreed = false
		return
	}
	if r.projected {
		r.rep.NotReplayed++
		return
	}
	r.windowN++
	r.window = "w" + strconv.Itoa(r.windowN)
}

// thresholdCompaction is Pi's automatic compaction before a prompt or a
// turn, applied to the projected window once the replay has left the
// record (before that, the record's own compactions are replayed).
func (r *run) thresholdCompaction() {
	s := r.rp.cfg.Settings
	if !r.projected || !s.AutoCompaction || r.tokens <= r.ctxWindow-s.Reserve {
		return
	}
	r.inCompact, r.cancelled, r.replaced = true, false, false
	r.event("before_compact", fs("reason", "threshold"))
	r.inCompact = false
	if r.cancelled || r.replaced {
		return
	}
	r.rep.ProjectedCompactions++
	r.tokens = min(r.tokens, s.KeepRecent) + r.boot
	r.event("compact_done", fs("reason", "threshold"))
}

// diverge marks the turn the replay leaves the record.
func (r *run) diverge() {
	if !r.projected {
		r.projected = true
		r.rep.DivergedAt = max(r.turn, 1)
	}
}

// resetAhead reports whether the record makes a reset here: a reset
// marker before the next model turn or prompt.
func (r *run) resetAhead() bool {
	for _, e := range r.path[r.pos:] {
		if e.IsMarker() {
			return true
		}
		if e.Type == session.TypeMessage && (e.Role == "assistant" || e.Role == "user") && e != r.path[r.pos] {
			return false
		}
	}
	return false
}

func (r *run) newWindow() {
	r.windowN++
	r.window = "r" + strconv.Itoa(r.windowN)
	r.tokens = r.boot
	r.reset, r.userAfter = true, false
}

// event builds, decides and records one event, then carries out the
// mechanics its effects imply.
func (r *run) event(name string, own ...fact) {
	ev, err := r.build(name, own...)
	if err != nil {
		r.reject(name, err)
		return
	}
	r.rep.Events++
	if r.tokens > r.rep.PeakTokens {
		r.rep.PeakTokens, r.rep.PeakProjected = r.tokens, r.projected
	}
	d, err := r.es.Decide(ev)
	if err != nil {
		r.reject(name, err)
		return
	}
	if len(d.Rules) == 0 {
		return
	}
	r.record(d)
	if r.depth > 4 {
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	// Copy what the effects ask before a nested event reuses the
	// session's buffers.
	type todo struct {
		name    string
		attempt int64
	}
	var work [4]todo
	todos := work[:0]
	for _, e := range d.Effects {
		var attempt int64
		if v, ok := e.Arg("attempt"); ok {
			if f, ok := v.(float64); ok {
				attempt = int64(f)
			}
		}
		todos = append(todos, todo{e.Name, attempt})
	}
	for _, t := range todos {
		r.effect(t.name, t.attempt)
	}
}

func (r *run) effect(name string, attempt int64) {
	s := r.rp.cfg.Settings
	switch name {
	case "commit_reset", "provide_reset":
		if name == "provide_reset" && !r.inCompact {
			return
		}
		r.rep.Resets++
		if name == "commit_reset" && !r.projected && r.resetAhead() {
			r.agreed = true
			r.windowN++
			r.window = "w" + strconv.Itoa(r.windowN)
			r.reset, r.userAfter = true, false
			return
		}
		r.diverge()
		if r.inCompact {
			r.replaced = true
		}
		r.newWindow()
	case "checkpoint":
		r.diverge()
		r.rep.Checkpoints++
		r.tokens = min(r.tokens, s.KeepRecent) + r.boot
		r.event("summary_done", fb("ok", true), fn("attempt", attempt))
	case "compact":
		r.rep.Compactions++
		r.inCompact, r.cancelled, r.replaced = true, false, false
		r.event("before_compact", fs("reason", "manual"))
		r.inCompact = false
		if r.cancelled {
			return
		}
		r.diverge()
		if !r.replaced {
			r.tokens = min(r.tokens, s.KeepRecent) + r.boot
		}
		r.event("compact_done", fs("reason", "manual"), fn("attempt", attempt))
		r.event("attempt_complete", fn("attempt", attempt))
	case "cancel_compaction":
		if !r.inCompact {
			return
		}
		r.rep.CancelledCompactions++
		r.cancelled = true
		// The recorded compaction did not happen: the window keeps its
		// size and the record's drop no longer describes it.
		r.diverge()
	}
}

func (r *run) reject(name string, err error) {
	if len(r.rep.Rejected) < 1000 {
		r.rep.Rejected = append(r.rep.Rejected, Rejected{Turn: r.turn, Event: name, Error: err.Error()})
	}
}

// record keeps a decision and notes reminders, warnings and hard
// reserves: an inject of a message named like a reminder (or a notice),
// an inject of a message named like a warning, a rule named like a hard
// reserve or a forced checkpoint.
func (r *run) record(d *engine.Decision) {
	mark := Mark{Turn: r.turn, Tokens: r.tokens, Runway: r.ctxWindow - r.tokens - r.rp.cfg.Settings.Reserve, Projected: r.projected}
	for _, e := range d.Effects {
		if e.Name != "inject" {
			continue
		}
		msg, _ := e.Arg("message")
		m, _ := msg.(string)
		switch {
		case strings.Contains(m, "warning"):
			if r.rep.FirstWarning == nil {
				mm := mark
				r.rep.FirstWarning = &mm
			}
			if len(r.rep.Warnings) < 1000 {
				r.rep.Warnings = append(r.rep.Warnings, mark)
			}
		case strings.Contains(m, "reminder") || strings.Contains(m, "notice"):
			if r.rep.FirstReminder == nil {
				mm := mark
				r.rep.FirstReminder = &mm
			}
		}
	}
	for _, rule := range d.Rules {
		if (strings.Contains(rule, "hard_reserve") || strings.Contains(rule, "force")) && r.rep.FirstHardReserve == nil {
			mm := mark
			r.rep.FirstHardReserve = &mm
		}
	}
	if len(r.rep.Decisions) >= r.rp.cfg.MaxDecisions {
		r.rep.DecisionsDropped++
		return
	}
	dec := Decision{Turn: r.turn, Event: d.Event, Tokens: r.tokens, Projected: r.projected,
		Rules: append([]string(nil), d.Rules...), Effects: make([]map[string]any, len(d.Effects))}
	for i, e := range d.Effects {
		m := make(map[string]any, len(e.Args)+1)
		m["effect"] = e.Name
		for _, a := range e.Args {
			m[a.Name] = a.Value
		}
		dec.Effects[i] = m
	}
	r.rep.Decisions = append(r.rep.Decisions, dec)
}

// String names a report's session for humans: its file and, when the
// session has one, its display name.
func (rep *Report) String() string {
	if rep.Name != "" {
		return fmt.Sprintf("%s (%s)", rep.File, rep.Name)
	}
	return rep.File
}
