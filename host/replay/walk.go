package replay

import (
	"strconv"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// run is the state of one session's replay.
type run struct {
	rp  *Replayer
	es  *engine.Session
	rep *Report

	window    string
	windowN   int
	now       int64
	tokens    int64 // the context as the host would report it now
	kind      Kind  // how tokens was found
	projected bool  // the replay left the record: tokens are projected
	ctxWindow int64
	boot      int64 // the context of a fresh window

	pc         piContext // Pi's estimate of the recorded context
	rec        int64     // pc's figure when tokens last followed it
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
	warnedTurn int  // the turn of the first warning in this window (0: none)
	obeyed     bool // the assumed close-out of this window's warning was made
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
		Skipped: f.Skipped, Joined: f.Joined, PeakKind: Estimated, RecordedPeakKind: Estimated,
	}
	if len(path) > 0 {
		rep.Leaf = path[len(path)-1].ID
	}
	for _, p := range f.Problems {
		rep.Errors = append(rep.Errors, p.String())
	}
	if f.MoreProblems > 0 {
		rep.Errors = append(rep.Errors, strconv.Itoa(f.MoreProblems)+" more problems")
	}
	r := &run{rp: rp, es: rp.cfg.Engine.NewSession(), rep: rep, window: "w1", windowN: 1, kind: Estimated}
	r.setModel(firstModel(path))
	r.boot = bootTokens(path)
	if len(path) > 0 {
		r.now = path[0].Millis
	}
	reason := "startup"
	if f.ParentSession != "" {
		reason = "fork"
	}
	r.event(evSessionStart, fs("reason", reason))
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
	r.finish()
	return rep, nil
}

func firstModel(path []*sessionfile.Entry) string {
	for _, e := range path {
		switch {
		case e.Type == session.TypeModelChange:
			return e.Extra().ModelID
		case e.Role == "assistant" && e.Name != "":
			return e.Name
		}
	}
	return ""
}

// bootTokens is the context of a fresh window: the session's first
// measured request (system prompt, tools and the first prompt).
func bootTokens(path []*sessionfile.Entry) int64 {
	for _, e := range path {
		if e.ValidUsage() {
			return e.RequestTokens()
		}
	}
	return 0
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

// follow brings the host's figure up to the record's: equal to it while
// the replay follows the record, moved by the record's growth (never by
// less than nothing) once it has left it.
func (r *run) follow() {
	cur, kind := r.pc.tokens()
	if cur > r.rep.RecordedPeakTokens {
		r.rep.RecordedPeakTokens, r.rep.RecordedPeakKind = cur, kind
	}
	if r.projected {
		if d := cur - r.rec; d > 0 {
			r.tokens += d
		}
		r.kind = Projected
	} else {
		r.tokens, r.kind = cur, kind
	}
	r.rec = cur
}

func (r *run) entry(e *sessionfile.Entry) {
	switch e.Type {
	case session.TypeMessage:
		switch e.Role {
		case "user":
			r.closeTurn()
			r.endRun()
			r.pc.message(e)
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
			r.pc.message(e)
		case "custom":
			r.customMessage(e)
		default:
			r.pc.message(e)
		}
	case session.TypeCustomMessage:
		r.customMessage(e)
	case session.TypeCustom:
		if e.IsMarker() {
			r.recordedReset(e)
		}
	case session.TypeCompaction:
		// The turn before ends on the context it had.
		r.closeTurn()
		if e.IsResetCompaction() {
			// The first entry of a recorded reset boundary; its marker
			// follows and switches the window.
			r.pc.compact(r.path, r.pos)
			return
		}
		r.recordedCompaction(e)
		r.pc.compact(r.path, r.pos)
	case session.TypeBranchSummary:
		r.pc.message(e)
		r.closeTurn()
		r.endRun()
		r.event(evSessionTree)
	case session.TypeModelChange:
		x := e.Extra()
		r.setModel(x.ModelID)
		model := x.ModelID
		if x.Provider != "" {
			model = x.Provider + "/" + x.ModelID
		}
		r.event(evModelSelect, fs("model", model))
	case session.TypeSessionInfo:
		r.rep.Name = e.Extra().SessionName
	}
}

func (r *run) customMessage(e *sessionfile.Entry) {
	// The boot of a recorded reset is part of the fresh window too.
	r.pc.message(e)
}

// answer is one model turn: its request, then its tool calls.
func (r *run) answer(e *sessionfile.Entry) {
	overflow := e.StopReason() == "error" && isOverflow(e.Extra().ErrorMessage)
	var stated, max int64
	if overflow {
		stated, max = overflowTokens(e.Extra().ErrorMessage)
	}
	if overflow && r.projected {
		r.follow()
		if r.tokens <= r.ctxWindow {
			// The record's overflow answered a window the policy had
			// already changed; the projected request fits, so it is not
			// replayed (its retry, which follows, is).
			r.rep.OverflowsNotReplayed++
			r.pc.answer(e)
			return
		}
	}
	// Pi compacts before a turn as before a prompt.
	r.thresholdCompaction()
	r.turn++
	r.rep.Turns++
	r.follow()
	recTokens, recKind := r.pc.tokens()
	pt := Point{Turn: r.turn, Tokens: r.tokens, Kind: r.kind, Recorded: recTokens, RecordedKind: recKind}
	if e.ValidUsage() {
		pt.Measured = e.RequestTokens()
	}
	if overflow && stated > 0 {
		pt.Measured = stated
		if len(r.rep.Stated) < 1000 {
			r.rep.Stated = append(r.rep.Stated, StatedSize{Line: int(e.Line), Tokens: stated, Maximum: max})
		}
	}
	if r.rp.cfg.Points {
		r.rep.Points = append(r.rep.Points, pt)
	}
	r.event(evRequest, fb("user_input", r.reset && r.userAfter))
	r.turnOpen, r.results, r.errKind = true, 0, ""
	switch e.StopReason() {
	case "error":
		r.outcome, r.errKind = "error", "other"
		if overflow {
			r.errKind = "overflow"
		}
	case "aborted":
		r.outcome = "aborted"
	default:
		r.outcome = "completed"
	}
	r.obey()
	for _, c := range e.Extra().ToolCalls {
		if r.rp.tools[c.Name] {
			r.event(evTool, fs("name", c.Name), fo("args", toolArgs(c.Args)))
		}
	}
	r.pc.answer(e)
	if overflow && stated > 0 {
		// The provider measured the prompt it refused: the context is
		// that size, whatever the estimate said.
		r.pc.measure(stated)
	}
	r.follow()
}

func (r *run) closeTurn() {
	if !r.turnOpen {
		return
	}
	r.turnOpen = false
	r.follow()
	r.event(evTurnEnd, fs("outcome", r.outcome), fs("error", r.errKind), fn("tool_results", r.results))
}

func (r *run) endRun() {
	if !r.inRun {
		return
	}
	r.inRun = false
	r.follow()
	r.event(evAgentEnd)
	if r.outcome == "" {
		// A run with no model turn (a prompt the record never answered)
		// has no outcome of its own: the fact keeps the contract's
		// default rather than a value the engine refuses.
		r.event(evBeforeSettle)
	} else {
		r.event(evBeforeSettle, fs("outcome", r.outcome))
	}
	r.event(evSettled, fb("aborted", r.outcome == "aborted"))
}

// recordedCompaction replays a compaction of the record, unless the
// replay has left the record.
func (r *run) recordedCompaction(e *sessionfile.Entry) {
	r.rep.RecordedCompactions++
	if r.projected {
		r.rep.NotReplayed++
		return
	}
	r.follow()
	reason := "manual"
	switch {
	case r.outcome == "error" && r.errKind == "overflow":
		reason = "overflow"
	case e.FromHook():
		reason = "manual"
	case r.rp.cfg.Settings.AutoCompaction && r.rec > r.ctxWindow-r.rp.cfg.Settings.Reserve:
		reason = "threshold"
	}
	r.inCompact, r.cancelled, r.replaced = true, false, false
	r.event(evBeforeCompact, fs("reason", reason), fb("will_retry", reason == "overflow"))
	r.inCompact = false
	if r.cancelled || r.replaced {
		return
	}
	r.event(evCompactDone, fs("reason", reason))
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
	r.warnedTurn, r.obeyed = 0, false
}

// thresholdCompaction is Pi's automatic compaction before a prompt or a
// turn, applied to the projected window once the replay has left the
// record (before that, the record's own compactions are replayed).
func (r *run) thresholdCompaction() {
	s := r.rp.cfg.Settings
	if !r.projected {
		return
	}
	r.follow()
	if !s.AutoCompaction || r.tokens <= r.ctxWindow-s.Reserve {
		return
	}
	r.inCompact, r.cancelled, r.replaced = true, false, false
	r.event(evBeforeCompact, fs("reason", "threshold"))
	r.inCompact = false
	if r.cancelled || r.replaced {
		return
	}
	r.rep.ProjectedCompactions++
	r.tokens = min(r.tokens, s.KeepRecent) + r.boot
	r.event(evCompactDone, fs("reason", "threshold"))
}
