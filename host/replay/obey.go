package replay

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// obey is the assumption --assume-obeys-within N makes: a record made
// without the policy's warning cannot show the agent acting on it, so N
// model turns after a window's first warning the agent is taken to close
// out: it calls the policy's first declared tool (wipe_memory,
// new_context), once per window, and the policy decides what that call
// does.
func (r *run) obey() {
	n := r.rp.cfg.ObeysWithin
	if n <= 0 || r.warnedTurn == 0 || r.obeyed || r.rp.closeOut == "" || r.turn < r.warnedTurn+n {
		return
	}
	r.obeyed = true
	r.rep.AssumedCloseOuts++
	r.diverge()
	r.event(evTool, fs("name", r.rp.closeOut), fo("args", map[string]any{}))
}

// finish writes what the report cannot tell from the record alone.
func (r *run) finish() {
	rep := r.rep
	if r.rp.cfg.Series {
		rep.Series = rep.Points
		if rep.Series == nil {
			rep.Series = []Point{}
		}
		rep.Thresholds = thresholdsFor(r.rp.cfg, rep.ContextWindow)
	}
	if r.rp.undeclared != "" {
		rep.Notes = append(rep.Notes, r.rp.undeclared)
		rep.KindsUndeclared = true
	}
	if rep.FirstWarning != nil && r.rp.cfg.ObeysWithin <= 0 && r.rp.closeOut != "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the policy warned, but this record was made without the warning: it cannot show the agent acting on it (calling %s, writing notes), so every later turn runs on as if ignored; --assume-obeys-within N assumes the agent closes out N turns after a warning", r.rp.closeOut))
	}
	if rep.AssumedCloseOuts > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("assumed: the agent called %s %d turns after a window's first warning (close-outs: %d); the record does not show it", r.rp.closeOut, r.rp.cfg.ObeysWithin, rep.AssumedCloseOuts))
	}
	if rep.RecordedPeakTokens > rep.ContextWindow && rep.WindowFrom != "flag" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the record's context reached %d tokens (%s), above the assumed %d-token window of %s (%s): the window is larger than assumed; give it with --context-window", rep.RecordedPeakTokens, rep.RecordedPeakKind, rep.ContextWindow, orDash(rep.Model), windowFromText(rep.WindowFrom)))
	} else if rep.RecordedPeakTokens > rep.ContextWindow {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the record's context reached %d tokens (%s), above --context-window %d", rep.RecordedPeakTokens, rep.RecordedPeakKind, rep.ContextWindow))
	}
	for _, s := range rep.Stated {
		if s.Maximum > 0 && s.Maximum != rep.ContextWindow {
			rep.Notes = append(rep.Notes, fmt.Sprintf("line %d: the provider states a maximum of %d tokens, not the assumed %d: try --context-window %d", s.Line, s.Maximum, rep.ContextWindow, s.Maximum))
			break
		}
	}
	if rep.WindowFrom == "default" && rep.Model == "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the record names no model: its window is assumed to be %d tokens; give it with --context-window", rep.ContextWindow))
	} else if rep.WindowFrom == "default" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("model %s is not in pi-ai's registry: its window is assumed to be %d tokens; give it with --context-window", orDash(rep.Model), rep.ContextWindow))
	}
}

func windowFromText(from string) string {
	switch from {
	case "model":
		return "from pi-ai's model registry"
	case "default":
		return "a default for a model the registry does not know"
	}
	return from
}

// StatedSize is a prompt size a provider stated in an overflow error: a
// measured figure of the context, and sometimes of the window.
type StatedSize struct {
	Line    int   `json:"line"`
	Tokens  int64 `json:"tokens"`
	Maximum int64 `json:"maximum,omitempty"`
}

// overflowSizes are the overflow errors that state the prompt's size
// (and the window): Anthropic's "prompt is too long: N tokens > M
// maximum", OpenAI's "maximum context length is M tokens. However, your
// messages resulted in N tokens", and the "N tokens … exceeds … M" forms
// of OpenAI-compatible servers.
//
// They are compiled at the first overflow a replay reads, not when the
// program starts: every process of the binary links this package.
var overflowSizes = sync.OnceValue(func() []overflowSize {
	return []overflowSize{
		{regexp.MustCompile(`(?i)prompt is too long: (\d+) tokens > (\d+)`), 1, 2},
		{regexp.MustCompile(`(?i)maximum context length is (\d+) tokens\. however, (?:your messages resulted in|you requested) (\d+) tokens`), 2, 1},
		{regexp.MustCompile(`(?i)input (?:length|tokens?)[^\d]{0,20}(\d+)[^\d]{1,40}(?:exceeds?|greater than|>)[^\d]{0,40}(\d+)`), 1, 2},
		{regexp.MustCompile(`(?i)(\d+) tokens? (?:exceeds?|is greater than|>) (?:the )?(?:model'?s? )?(?:maximum |max )?(?:context (?:length|window) )?(?:of )?(\d+)`), 1, 2},
	}
})

type overflowSize struct {
	re         *regexp.Regexp
	tokens, mx int // submatch indices (0: none)
}

// overflowTokens returns the prompt size (and the window) an overflow
// error states, 0 when it states none.
func overflowTokens(msg string) (tokens, maximum int64) {
	if msg == "" {
		return 0, 0
	}
	for _, p := range overflowSizes() {
		m := p.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		t, err := strconv.ParseInt(m[p.tokens], 10, 64)
		if err != nil || t <= 0 || t > 1<<40 {
			continue
		}
		var mx int64
		if p.mx > 0 {
			mx, _ = strconv.ParseInt(m[p.mx], 10, 64)
		}
		return t, mx
	}
	return 0, 0
}
