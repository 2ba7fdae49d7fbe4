package sim

import (
	"math"
	"strconv"

	"github.com/resetpolicy/resetpolicy/engine"
	piestimate "github.com/resetpolicy/resetpolicy/host/estimate"
	"github.com/resetpolicy/resetpolicy/host/jsonscan"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// event sends one host event to the engine with the facts of the
// simulated session, records its timeline line and carries out its
// effects. Entries appended and events raised while carrying them out
// belong to this line and to the nested lines that follow it.
func (h *host) event(name string, own map[string]any) error {
	h.events++
	if h.events > h.opts.MaxEvents {
		return h.fail("more than %d host events: the policy keeps the session running (a continuation that never settles?)", h.opts.MaxEvents)
	}
	tokens := h.tokens()
	m := map[string]any{
		"event":           name,
		"window_id":       h.window,
		"now_ms":          h.now,
		"enabled":         h.enabled,
		"auto_reset":      h.autoReset,
		"auto_compaction": h.autoCompaction,
		"tokens":          tokens,
		"context_window":  h.contextWindow,
		"reserve":         h.reserve,
		"idle":            !h.streaming,
		"queued":          len(h.steerQ)+len(h.followQ) > 0,
	}
	for k, v := range own {
		m[k] = v
	}
	ev, err := engine.NewEvent(m)
	if err != nil {
		return h.fail("the simulated host built a bad %s event: %v", name, err)
	}
	derived, all := h.derived(ev)
	d, err := h.es.Decide(ev)
	if err != nil {
		return h.fail("policy %s: %v", h.pol.Name, err)
	}
	d = d.Clone()
	line := &Line{
		Event: name, Facts: own, Turn: h.turn, Window: h.window, Now: h.now, Idle: !h.streaming,
		Queued: len(h.steerQ)+len(h.followQ) > 0,
		Tokens: tokens, Remaining: h.contextWindow - tokens,
		Derived: derived, Read: h.read(d.Rules, all),
		Rules: d.Rules, Effects: d.Effects,
		Entries: h.pending, Notes: h.pendingNotes,
	}
	if line.Rules == nil {
		line.Rules = []string{}
	}
	h.pending, h.pendingNotes = nil, nil
	h.res.Lines = append(h.res.Lines, line)
	outer := h.line
	h.line = line
	err = h.carryOut(name, d.Effects)
	if err == nil {
		// After the decision's own entries (a reset boundary stays whole).
		h.persistDurable()
	}
	h.line = outer
	return err
}

// derived returns the policy's derived numbers and bools for the event,
// with the state before it — what the rules' guards see — that changed
// since the previous line (all numbers and the true bools on the first
// line). Numbers named like a timeline column (tokens, remaining) are left
// out.
func (h *host) derived(ev engine.Event) (changed, all []Value) {
	first := len(h.res.Lines) == 0
	var out []Value
	for _, d := range h.es.Derived(ev) {
		if d.Name == "tokens" || d.Name == "remaining" {
			continue
		}
		var text string
		switch v := d.Value.(type) {
		case bool:
			text = strconv.FormatBool(v)
		case float64:
			text = formatNumber(v)
		default:
			continue
		}
		all = append(all, Value{Name: d.Name, Text: text})
		prev, seen := h.prevDerived[d.Name]
		h.prevDerived[d.Name] = text
		switch {
		case first && text == "false":
		case first || (seen && prev != text) || (!seen && text != "false"):
			out = append(out, Value{Name: d.Name, Text: text})
		}
	}
	return out, all
}

func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return lang.FormatNum(f)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// tokens is the host's estimate of the active window's context, as Pi's
// getContextUsage makes it.
func (h *host) tokens() int64 { return h.tokensOf(h.sess.Path()) }

// tokensOf estimates a branch's context: the usage the provider reported
// for the latest answer after the latest compaction (not an error or an
// aborted one), plus an estimate of the messages after it; without such
// an answer, an estimate of the whole projected context. The estimate is
// Pi's (host/estimate): a token per four characters of what the model
// reads, by role.
func (h *host) tokensOf(path []*session.Entry) int64 {
	p := session.Project(path)
	msgs := p.Context
	last := -1
	for i, e := range path {
		if e.Type() == session.TypeCompaction {
			last = i
		}
	}
	for i := len(path) - 1; i > last; i-- {
		e := path[i]
		if e.Type() != session.TypeMessage || e.Role() != "assistant" {
			continue
		}
		a, err := session.DecodeAssistant(e.Message())
		if err != nil || a.StopReason == "error" || a.StopReason == "aborted" || a.Usage.ContextTokens() == 0 {
			continue
		}
		after := 0
		for j, m := range msgs {
			if m.EntryID == e.ID() {
				after = j + 1
			}
		}
		if after == 0 {
			break
		}
		return a.Usage.ContextTokens() + estimate(msgs[after:])
	}
	return estimate(msgs)
}

// estimate is Pi's estimateTokens summed over the messages
// (host/estimate, the estimator the replay shares).
func estimate(msgs session.Context) int64 {
	var d jsonscan.Doc
	var n int64
	for _, m := range msgs {
		n += piestimate.Raw(&d, m.Message)
	}
	return n
}
