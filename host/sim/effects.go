package sim

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/host/session"
)

// carryOut carries out a decision's effects, in order, with the host
// mechanics of package session.
func (h *host) carryOut(ev string, effects []engine.Effect) error {
	for _, ef := range effects {
		switch ef.Name {
		case "reply":
			text := argString(ef, "text")
			if h.call != nil {
				h.call.replies = append(h.call.replies, text)
				h.call.terminate = h.call.terminate || argBool(ef, "terminate")
			} else {
				h.res.Replies = append(h.res.Replies, text)
			}
		case "notify":
			h.notice(argString(ef, "level"), argString(ef, "text"))
		case "status":
			h.res.Status = argString(ef, "text")
		case "inject":
			if err := h.inject(ev, argString(ef, "message"), argString(ef, "deliver")); err != nil {
				return err
			}
		case "commit_reset":
			if err := h.commitReset(ev, argBool(ef, "continue"), argBool(ef, "stop")); err != nil {
				return err
			}
		case "provide_reset":
			if h.compaction == nil {
				h.notef("provide_reset outside before_compact: there is no compaction to answer")
				continue
			}
			h.compaction.provide = true
		case "cancel_compaction":
			if text := argString(ef, "text"); text != "" {
				h.notice("warning", text)
			}
			if h.compaction == nil {
				h.notef("cancel_compaction outside before_compact: there is no compaction to cancel")
				continue
			}
			h.compaction.cancel = true
		case "suppress_summary":
			if h.treeAnswer == nil {
				h.notef("suppress_summary outside before_tree: there is no branch summary to suppress")
				continue
			}
			h.treeAnswer.suppress = true
		case "compact":
			h.deferred = append(h.deferred, argInt(ef, "attempt"))
		case "checkpoint":
			if err := h.checkpoint(ev, argBool(ef, "continue"), argInt(ef, "attempt")); err != nil {
				return err
			}
		case "continue":
			h.requestContinue(true)
		case "stop":
			h.requestStop(ev)
		case "repair":
			if err := h.repair(); err != nil {
				return err
			}
		case "save_param":
			v, _ := ef.Arg("value")
			f, _ := v.(float64)
			h.res.Params = append(h.res.Params, ParamChange{Name: argString(ef, "name"), Value: f})
		case "clear_param":
			h.res.Params = append(h.res.Params, ParamChange{Name: argString(ef, "name"), Cleared: true})
		default:
			h.notef("effect %s is not carried out by the simulated host", ef.Name)
		}
	}
	return nil
}

func argString(ef engine.Effect, name string) string {
	v, _ := ef.Arg(name)
	s, _ := v.(string)
	return s
}

func argBool(ef engine.Effect, name string) bool {
	v, _ := ef.Arg(name)
	b, _ := v.(bool)
	return b
}

// argInt reads a number argument (0 when it is absent).
func argInt(ef engine.Effect, name string) int64 {
	v, _ := ef.Arg(name)
	f, _ := v.(float64)
	return int64(f)
}

func (h *host) messageText(name string) (string, bool) {
	m, ok := h.pol.Message(name)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(m.Text), true
}

// boundaryMessages are the boot and continuation texts of a reset
// boundary: the policy's messages `boot` and `continuation` when it
// declares them, else the defaults.
func (h *host) boundaryMessages() session.BoundaryMessages {
	boot, ok := h.messageText(BootMessage)
	if !ok {
		boot = DefaultBoot
	}
	cont, ok := h.messageText(ContinuationMessage)
	if !ok {
		cont = DefaultContinuation
	}
	return session.BoundaryMessages{Boot: session.Text(boot), Continuation: session.Text(cont)}
}

// inject adds a hidden policy message: into this request (made durable
// at the end of a completed turn), as a steering message while the agent
// streams, or as the start of a run while it is idle (Pi's sendMessage
// with triggerTurn).
func (h *host) inject(ev, name, deliver string) error {
	text, ok := h.messageText(name)
	if !ok {
		return h.fail("policy %s injects message %q, which it does not declare", h.pol.Name, name)
	}
	if deliver == "request" && ev == "request" {
		h.drafts = append(h.drafts, requestDraft{window: h.window, name: name, text: text})
		return nil
	}
	p := pending{name: name, text: text}
	if h.streaming {
		h.steerQ = append(h.steerQ, p)
		return nil
	}
	h.startLater(&p)
	return nil
}

// startLater asks for a run once the host is idle; p (if any) is one of
// the messages that start it.
func (h *host) startLater(p *pending) {
	if h.trigger == nil {
		h.trigger = &runStart{}
	}
	if p != nil {
		h.trigger.msgs = append(h.trigger.msgs, *p)
	}
}

// requestContinue asks for one continuation: at a turn_end or
// before_settle boundary it is the boundary's `continue`; in the middle
// of a run it applies at the next boundary; idle, it starts a run — with
// the policy's continuation message when withMessage, else context-only
// (the context already ends in what the model should answer).
func (h *host) requestContinue(withMessage bool) {
	switch {
	case h.boundary != nil:
		h.boundary.cont = true
	case h.streaming:
		h.wantContinue = true
	case withMessage:
		text := h.boundaryMessages().Continuation.Text
		h.startLater(&pending{name: ContinuationMessage, text: text})
	default:
		h.startLater(nil)
	}
}

// requestStop stops the run: at a request it cancels the request (once
// verified, see cannotStop), at a boundary it ends the run there, in the
// middle of a run at the next boundary.
func (h *host) requestStop(ev string) {
	switch {
	case ev == "request":
		h.stopRequest = true
	case h.boundary != nil:
		h.boundary.stop = true
	case h.streaming:
		h.stopRun = true
	default:
		h.notef("stop: nothing is running")
	}
}

// commitReset appends seed 000's ordered retain-none boundary for a new
// window and continues in it or stops.
func (h *host) commitReset(ev string, cont, stop bool) error {
	w := h.nextWindow()
	drafts, err := session.Boundary(w, h.boundaryMessages())
	if err != nil {
		return h.fail("reset boundary: %v", err)
	}
	es, err := h.sess.AppendDrafts(drafts)
	h.add(es...)
	if err != nil {
		return h.fail("reset boundary: %v", err)
	}
	if !session.Committed(h.sess.Path(), w) {
		return h.fail("reset boundary of window %s does not confirm: %v", w, session.CheckCommitted(h.sess.Path(), w))
	}
	h.window = w
	h.drafts = nil
	if cont {
		h.requestContinue(false)
	}
	if stop {
		h.requestStop(ev)
	}
	return nil
}

// checkpoint summarises the context and appends seed 002's
// self-retaining compaction, then reports summary_done with the effect's
// attempt, so the policy can tell this checkpoint's result from an older
// one's. A scripted failure leaves the session unchanged.
func (h *host) checkpoint(ev string, cont bool, attempt int64) error {
	out := &scenario.Summary{OK: true}
	if len(h.summaries) > 0 {
		out = h.summaries[0]
		h.summaries = h.summaries[1:]
	}
	// Inside before_compact the checkpoint is the host's compaction (as
	// the Pi extension answers session_before_compact with it); a failed
	// summary cancels that compaction instead of letting the host's own
	// summary run.
	if cd := h.compaction; cd != nil {
		cd.checkpointed = out.OK
		cd.cancel = cd.cancel || !out.OK
	}
	if out.OK {
		text := out.Text
		if text == "" {
			text = h.generatedSummary()
		}
		d, err := session.Checkpoint(text, nil, nil)
		if err != nil {
			return h.fail("checkpoint: %v", err)
		}
		es, err := h.sess.AppendDrafts([]session.Draft{d})
		h.add(es...)
		if err != nil {
			return h.fail("checkpoint: %v", err)
		}
	}
	if err := h.event("summary_done", map[string]any{"ok": out.OK, "error": out.Error, "attempt": attempt}); err != nil {
		return err
	}
	if out.OK && cont {
		h.requestContinue(false)
	}
	return nil
}

// generatedSummary stands in for the model's summary of the context.
func (h *host) generatedSummary() string {
	ctx := session.Project(h.sess.Path()).Context
	task := ""
	n := 0
	for _, m := range ctx {
		switch m.Role() {
		case "user", "assistant", "toolResult", "custom":
			n++
		}
	}
	for _, e := range h.sess.Path() {
		if e.Type() == session.TypeMessage && e.Role() == "user" {
			var um session.UserMessage
			if err := json.Unmarshal(e.Message(), &um); err == nil {
				task = um.Content.String()
			}
		}
	}
	s := fmt.Sprintf("## Goal\n%s\n\n## Progress\nSummary of %d messages of context.", strings.TrimSpace(task), n)
	return s
}

// repair completes a repairable reset tail (seed 000, startup/tree
// repair); a refused tail is left alone.
func (h *host) repair() error {
	r := session.InspectTail(h.sess.Path(), "")
	switch r.Status {
	case session.TailRepairable:
		drafts, err := session.Repair(r, h.boundaryMessages())
		if err != nil {
			return h.fail("repair: %v", err)
		}
		es, err := h.sess.AppendDrafts(drafts)
		h.add(es...)
		if err != nil {
			return h.fail("repair: %v", err)
		}
		var missing []string
		for _, a := range r.Missing {
			missing = append(missing, string(a))
		}
		h.notef("repaired the reset tail of window %s: %s", r.WindowID, strings.Join(missing, ", "))
	case session.TailRefused:
		if session.Committed(h.sess.Path(), r.WindowID) {
			// A committed boundary with later work: nothing to repair.
			return nil
		}
		h.notef("reset tail of window %s not repaired: %s", r.WindowID, r.Reason)
	}
	return nil
}

// thresholdCompaction is Pi's automatic compaction when the context
// exceeds the window minus the reserve.
func (h *host) thresholdCompaction() error {
	if !h.autoCompaction || h.tokens() <= h.contextWindow-h.reserve {
		return nil
	}
	_, _, err := h.hostCompaction("threshold", false, 0)
	return err
}

// attempt is a compaction a policy started with `compact`, with its
// completion or error callback.
func (h *host) attempt(n int64) error {
	ok, why, err := h.hostCompaction("manual", false, n)
	if err != nil {
		return err
	}
	if ok {
		return h.event("attempt_complete", map[string]any{"attempt": n})
	}
	return h.event("attempt_error", map[string]any{"attempt": n, "error": why})
}

// hostCompaction is one compaction of the host: Pi's eligibility check,
// session_before_compact answered by the policy (cancel, a retain-none
// reset, or nothing: Pi's own summary), then session_compact or
// session_compact_failed. It reports whether a compaction was appended
// and, if not, why.
func (h *host) hostCompaction(reason string, willRetry bool, attempt int64) (bool, string, error) {
	var script *scenario.Compaction
	if len(h.compactions) > 0 {
		script = h.compactions[0]
		h.compactions = h.compactions[1:]
	}
	path := h.sess.Path()
	why := ""
	switch {
	case script != nil && script.Reject != "":
		why = script.Reject
	case session.CompactedAtLeaf(path):
		why = "Already compacted"
	case !hasConversation(path):
		why = "Nothing to compact (session too small)"
	}
	if why != "" {
		h.notef("%s compaction rejected before the hook: %s", reason, why)
		return false, why, nil
	}
	tokensBefore := h.tokensOf(path)
	cd := &compactDecision{}
	h.compaction = cd
	err := h.event("before_compact", map[string]any{"reason": reason, "will_retry": willRetry,
		"signal_aborted": script != nil && script.SignalAborted, "after_reset": hasMarker(path)})
	h.compaction = nil
	if err != nil {
		return false, "", err
	}
	failed := func(msg string, aborted bool) (bool, string, error) {
		return false, msg, h.event("compact_failed", map[string]any{"reason": reason, "attempt": attempt, "error": map[bool]string{true: "", false: msg}[aborted], "aborted": aborted})
	}
	switch {
	case cd.cancel:
		return failed("Compaction cancelled", true)
	case script != nil && script.SignalAborted:
		return failed("Compaction aborted", true)
	case script != nil && script.Error != "":
		// The compaction fails after the hook, with the policy's content
		// or Pi's own.
		return failed(script.Error, false)
	case cd.provide:
		w := h.nextWindow()
		r, err := session.CompactionTimeReset(w, tokensBefore)
		if err != nil {
			return false, "", h.fail("compaction-time reset: %v", err)
		}
		h.add(r.Apply(h.sess))
		h.window = w
		h.drafts = nil
	case cd.checkpointed:
		// appended by the checkpoint effect
	default:
		h.nativeCompaction(path, tokensBefore)
	}
	return true, "", h.event("compact_done", map[string]any{"reason": reason, "attempt": attempt})
}

// nativeCompaction is Pi's own summarising compaction, kept simple: the
// summary stands for everything before the latest user message, which is
// kept.
func (h *host) nativeCompaction(path []*session.Entry, tokensBefore int64) {
	ctx := session.ContextEntries(path)
	kept := ""
	for i := len(ctx) - 1; i >= 0; i-- {
		if ctx[i].Type() == session.TypeMessage && ctx[i].Role() == "user" {
			kept = ctx[i].ID()
			break
		}
	}
	no := false
	h.add(h.sess.AppendCompaction(session.Compaction{Summary: h.generatedSummary(), FirstKeptEntryID: kept,
		TokensBefore: tokensBefore, FromHook: &no}))
}

// hasConversation reports whether anything was said since the latest
// compaction.
func hasConversation(path []*session.Entry) bool {
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type() == session.TypeCompaction {
			return false
		}
		if (e.Type() == session.TypeMessage && e.Role() != "system") || e.Type() == session.TypeCustomMessage {
			return true
		}
	}
	return false
}

// hasMarker reports whether the branch holds a reset marker: the
// before_compact fact after_reset (a summary would carry erased history back).
func hasMarker(path []*session.Entry) bool {
	for _, e := range path {
		if session.IsMarker(e) {
			return true
		}
	}
	return false
}
