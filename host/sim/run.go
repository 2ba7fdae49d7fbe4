package sim

import (
	"fmt"

	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/session"
)

// runResult is how a low-level agent run ended.
type runResult struct {
	outcome string // completed, error, aborted
	// cancelled: the operation was cancelled (a user abort, or a stop the
	// host carried out with ctx.abort()); the run skips before_settle.
	cancelled bool
	overflow  bool
	failedID  string // the failed answer's entry, for Pi's omission edit
}

// startRun runs the agent from idle until it settles (Pi 1.6, extensions.md
// "Lifecycle Overview"): agent_start, turns, agent_end, more work (overflow
// compact-and-retry, queued follow-ups), before_settle and its
// continuation, settled. msgs start the run; none makes a context-only
// continuation.
func (h *host) startRun(msgs []pending, prompt bool) error {
	// "Pi counts as busy while a run starts, including the compaction
	// check".
	h.streaming = true
	if prompt {
		// "Pi also checks before a new user prompt."
		if err := h.thresholdCompaction(); err != nil {
			return err
		}
	}
	h.overflowRetried = false
	h.wantContinue, h.stopRun = false, false
	for _, m := range msgs {
		if err := h.deliver(m); err != nil {
			return err
		}
	}
	for {
		res, err := h.lowLevelRun()
		if err != nil {
			return err
		}
		if err := h.event("agent_end", nil); err != nil {
			return err
		}
		if res.cancelled {
			return h.settle(true)
		}
		// More work? A compaction retry first ...
		if res.overflow && h.autoCompaction && !h.overflowRetried {
			h.overflowRetried = true
			if res.failedID != "" {
				// Pi omits the failed attempt before recovering.
				e, err := h.sess.AppendContextEdit(res.failedID, nil)
				if err != nil {
					return h.fail("omitting the failed answer: %v", err)
				}
				h.add(e)
			}
			ok, _, err := h.hostCompaction("overflow", true, 0)
			if err != nil {
				return err
			}
			if ok {
				h.noteLast("retry after overflow recovery")
				continue
			}
		}
		// ... then queued messages, one at a time.
		if next, ok := h.popQueued(); ok {
			if err := h.deliver(next); err != nil {
				return err
			}
			continue
		}
		b := &boundary{}
		h.boundary = b
		err = h.event("before_settle", map[string]any{"outcome": res.outcome})
		h.boundary = nil
		if err != nil {
			return err
		}
		if b.stop || h.stopRun {
			h.stopRun = false
			h.noteLast("run stopped")
			break
		}
		if next, ok := h.popQueued(); ok {
			if err := h.deliver(next); err != nil {
				return err
			}
			continue
		}
		if b.cont || h.wantContinue {
			h.wantContinue = false
			h.noteLast("continuation requested")
			continue
		}
		break
	}
	return h.settle(false)
}

func (h *host) popQueued() (pending, bool) {
	if len(h.steerQ) > 0 {
		p := h.steerQ[0]
		h.steerQ = h.steerQ[1:]
		return p, true
	}
	if len(h.followQ) > 0 {
		p := h.followQ[0]
		h.followQ = h.followQ[1:]
		return p, true
	}
	return pending{}, false
}

// settle ends a run: the host is idle again and agent_settled fires. A
// cancelled operation returns the queued messages to the editor.
func (h *host) settle(aborted bool) error {
	h.streaming = false
	h.drafts = nil
	h.wantContinue, h.stopRun, h.stopRequest = false, false, false
	if aborted && len(h.steerQ)+len(h.followQ) > 0 {
		h.notef("%d queued message(s) returned to the editor", len(h.steerQ)+len(h.followQ))
		h.steerQ, h.followQ = nil, nil
	}
	return h.event("settled", map[string]any{"aborted": aborted})
}

// lowLevelRun runs turns until none follows: each turn makes one request,
// takes the model's answer from the scenario, runs its tool calls and
// ends at the turn_end boundary.
func (h *host) lowLevelRun() (runResult, error) {
	for {
		h.turn++
		h.stopRequest = false
		if err := h.event("request", map[string]any{"user_input": h.userInputAfterReset()}); err != nil {
			return runResult{}, err
		}
		proj := session.Project(h.sess.Path())
		cancel := ""
		switch {
		case h.stopRequest:
			h.stopRequest = false
			if why := h.cannotStop(); why != "" {
				h.noteLast("stop not carried out: %s", why)
			} else {
				cancel = "the request is cancelled (stop)"
			}
		case proj.Mode == session.ModeAbort:
			// "If the boot is absent, the runtime aborts safely instead
			// of sending raw history."
			h.notice("error", "The active window's boot message is missing; the request was not sent: "+proj.Reason)
			cancel = "safe abort: " + proj.Reason
		}
		if cancel != "" {
			h.noteLast("%s", cancel)
			e, err := h.sess.AppendMessage(session.AssistantMessage{Content: []session.Block{}, API: "sim", Provider: "sim",
				Model: h.model, StopReason: "aborted", ErrorMessage: "Request was aborted", Timestamp: h.millis()})
			if err != nil {
				return runResult{}, h.fail("%v", err)
			}
			h.add(e)
			h.drafts = nil
			if err := h.event("turn_end", map[string]any{"outcome": "aborted"}); err != nil {
				return runResult{}, err
			}
			return runResult{outcome: "aborted", cancelled: true}, nil
		}
		a, err := h.nextAnswer()
		if err != nil {
			return runResult{}, err
		}
		e, err := h.appendAnswer(a)
		if err != nil {
			return runResult{}, err
		}
		switch {
		case a.Abort == "user":
			h.drafts = nil
			if err := h.event("turn_end", map[string]any{"outcome": "aborted"}); err != nil {
				return runResult{}, err
			}
			return runResult{outcome: "aborted", cancelled: true}, nil
		case a.Abort == "synthetic":
			h.drafts = nil
			if err := h.event("turn_end", map[string]any{"outcome": "aborted", "synthetic_abort": true}); err != nil {
				return runResult{}, err
			}
			return runResult{outcome: "aborted"}, nil
		case a.Error != "":
			kind := "other"
			if a.Error == "overflow" {
				kind = "overflow"
			}
			h.drafts = nil
			if err := h.event("turn_end", map[string]any{"outcome": "error", "error": kind}); err != nil {
				return runResult{}, err
			}
			return runResult{outcome: "error", overflow: kind == "overflow", failedID: e.ID()}, nil
		}
		results, terminated := 0, 0
		for i, c := range a.Calls {
			term, err := h.runTool(fmt.Sprintf("call_%d_%d", h.turn, i+1), c)
			if err != nil {
				return runResult{}, err
			}
			results++
			if term {
				terminated++
			}
		}
		if err := h.consumeDrafts(); err != nil {
			return runResult{}, err
		}
		b := &boundary{}
		h.boundary = b
		err = h.event("turn_end", map[string]any{"outcome": "completed", "tool_results": int64(results)})
		h.boundary = nil
		if err != nil {
			return runResult{}, err
		}
		if b.stop || h.stopRun {
			h.stopRun = false
			h.noteLast("run stopped after the turn (ctx.abort)")
			return runResult{outcome: "aborted", cancelled: true}, nil
		}
		toolFollowUp := results > 0 && terminated < results
		if !toolFollowUp && len(h.steerQ) == 0 && !b.cont && !h.wantContinue {
			return runResult{outcome: "completed"}, nil
		}
		h.wantContinue = false
		// "Threshold compaction runs before a naturally required next
		// turn."
		if err := h.thresholdCompaction(); err != nil {
			return runResult{}, err
		}
		if len(h.steerQ) > 0 {
			p := h.steerQ[0]
			h.steerQ = h.steerQ[1:]
			if err := h.deliver(p); err != nil {
				return runResult{}, err
			}
		}
	}
}

// cannotStop says why a stop at a request is not carried out: the host
// verifies the committed boundary before cancelling ("context_with_system
// verifies the committed checkpoint/marker/boot/continuation before using
// public ctx.abort()"). Whether user input bypasses the cancellation is the
// policy's decision, from the request's user_input fact.
func (h *host) cannotStop() string {
	path := h.sess.Path()
	mi := -1
	for i, e := range path {
		if session.IsMarker(e) && e.WindowID() == h.window {
			mi = i
		}
	}
	if mi >= 0 {
		if err := session.CheckCommitted(path, h.window); err != nil {
			return "the reset of window " + h.window + " is not committed: " + err.Error()
		}
	}
	return ""
}

// userInputAfterReset reports whether a real user message follows the
// latest reset boundary on the branch: the request's user_input fact.
func (h *host) userInputAfterReset() bool {
	path := h.sess.Path()
	last := -1
	for i, e := range path {
		if session.IsMarker(e) || session.IsTrustedCheckpoint(e) {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, e := range path[last+1:] {
		if e.Type() == session.TypeMessage && e.Role() == "user" {
			return true
		}
	}
	return false
}

// nextAnswer reads the scenario up to the model's answer; steps before
// it happen while the agent streams.
func (h *host) nextAnswer() (*scenario.Assistant, error) {
	for {
		if h.pos >= len(h.sc.Steps) {
			h.step = nil
			e := h.fail("the scenario ends while the model is asked for an answer (turn %d, window %s): add an assistant step", h.turn, h.window)
			if n := len(h.sc.Steps); n > 0 {
				r := h.sc.Steps[n-1].Range()
				e.(*Error).Range = r
			}
			return nil, e
		}
		h.step = h.sc.Steps[h.pos]
		h.pos++
		if a, ok := h.step.(*scenario.Assistant); ok {
			return a, nil
		}
		if err := h.streamingStep(h.step); err != nil {
			return nil, err
		}
	}
}

// appendAnswer persists the model's answer as Pi does.
func (h *host) appendAnswer(a *scenario.Assistant) (*session.Entry, error) {
	m := session.AssistantMessage{Content: []session.Block{}, API: "sim", Provider: "sim", Model: h.model, Timestamp: h.millis()}
	if a.Text != "" {
		m.Content = append(m.Content, session.TextBlock(a.Text))
	}
	for i, c := range a.Calls {
		m.Content = append(m.Content, session.ToolCallBlock(fmt.Sprintf("call_%d_%d", h.turn, i+1), c.Name, c.Args))
	}
	switch {
	case a.Abort != "":
		m.StopReason, m.ErrorMessage = "aborted", "Request was aborted"
	case a.Error == "overflow":
		m.StopReason, m.ErrorMessage = "error", "prompt is too long: the request exceeds the model's context window"
	case a.Error != "":
		m.StopReason, m.ErrorMessage = "error", a.Error
	case len(a.Calls) > 0:
		m.StopReason = "toolUse"
	default:
		m.StopReason = "stop"
	}
	if a.Abort == "" && a.Error == "" {
		out := int64(len(a.Text)/4 + 16*len(a.Calls) + 1)
		total := a.Tokens
		if total == 0 {
			total = h.tokens() + out
		}
		in := total - out
		if in < 0 {
			in = 0
		}
		m.Usage = session.Usage{Input: in, Output: out, TotalTokens: total}
	}
	e, err := h.sess.AppendMessage(m)
	if err != nil {
		return nil, h.fail("%v", err)
	}
	h.add(e)
	return e, nil
}

// runTool executes one tool call. A tool the policy declares is a `tool`
// event whose replies are the result; another returns its scripted result.
func (h *host) runTool(id string, c scenario.Call) (terminate bool, err error) {
	text, isError := c.Result, c.IsError
	if h.isPolicyTool(c.Name) {
		cc := &callCtx{}
		h.call = cc
		err := h.event("tool", map[string]any{"name": c.Name, "args": c.ArgsMap})
		h.call = nil
		if err != nil {
			return false, err
		}
		text, isError, terminate = "", false, cc.terminate
		for i, r := range cc.replies {
			if i > 0 {
				text += "\n"
			}
			text += r
		}
		if text == "" {
			text = c.Name + ": done."
		}
	} else if text == "" {
		text = "ok"
	}
	e, err := h.sess.AppendMessage(session.ToolResultMessage{ToolCallID: id, ToolName: c.Name,
		Content: []session.Block{session.TextBlock(text)}, IsError: isError, Timestamp: h.millis()})
	if err != nil {
		return false, h.fail("%v", err)
	}
	h.add(e)
	return terminate, nil
}

// deliver appends a message that starts or continues a run: a user
// message, or a hidden message of the policy.
func (h *host) deliver(p pending) error {
	if p.user {
		e, err := h.sess.AppendMessage(session.UserMessage{Content: session.Text(p.text), Timestamp: h.millis()})
		if err != nil {
			return h.fail("%v", err)
		}
		h.add(e)
		return nil
	}
	h.add(h.sess.AppendCustomMessage(InjectedType, session.Text(p.text), false,
		session.Raw(map[string]string{"name": p.name, "windowId": h.window})))
	return nil
}

// consumeDrafts makes the hidden messages injected into this turn's
// requests durable at its completed end, in the window they were made
// for; drafts of another window are discarded (seed 000: "Budget drafts
// ... are consumed at turn end ... discarded on abort, failed turn,
// transition, or window mismatch").
func (h *host) consumeDrafts() error {
	for _, d := range h.drafts {
		if d.window != h.window {
			h.notef("draft %s of window %s discarded", d.name, d.window)
			continue
		}
		h.add(h.sess.AppendCustomMessage(InjectedType, session.Text(d.text), false,
			session.Raw(map[string]string{"name": d.name, "windowId": d.window})))
	}
	h.drafts = nil
	return nil
}
