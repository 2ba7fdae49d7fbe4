package replay

import (
	"strings"
	"sync"
)

//go:generate go run ./internal/genmodels

// piModel is one model of pi-ai's registry.
type piModel struct {
	provider, id string
	window       int64
}

// windowByID is each model id's context window: the one most of its
// providers give (the larger on a tie), as a replay knows a session's
// model id but not always its provider. It is built at the first look-up,
// not when the program starts: every process of the binary (the server Pi
// spawns at each session among them) links this package.
var windowByID = sync.OnceValue(func() map[string]int64 {
	votes := map[string]map[int64]int{}
	for _, m := range piModels {
		id := strings.ToLower(m.id)
		if votes[id] == nil {
			votes[id] = map[int64]int{}
		}
		votes[id][m.window]++
	}
	out := make(map[string]int64, len(votes))
	for id, v := range votes {
		best, n := int64(0), 0
		for w, c := range v {
			if c > n || (c == n && w > best) {
				best, n = w, c
			}
		}
		out[id] = best
	}
	return out
})

// DefaultContextWindow is the host contract's default, used for a model
// pi-ai's registry does not know.
const DefaultContextWindow = 200000

// ContextWindow returns a model's context window from pi-ai's registry
// (the id as written, then without a provider prefix) and whether the
// registry knew the model.
func ContextWindow(model string) (int64, bool) {
	m := strings.ToLower(model)
	if w, ok := windowByID()[m]; ok {
		return w, true
	}
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		if w, ok := windowByID()[m[i+1:]]; ok {
			return w, true
		}
	}
	return DefaultContextWindow, false
}

// overflowPatterns are lower-case fragments of the provider errors Pi
// recognises as context overflow (pi-ai utils/overflow.js).
var overflowPatterns = []string{
	"prompt is too long", "prompt too long", "prompt exceeds max length", "request_too_large",
	"input is too long for requested model", "exceeds the context window", "maximum context length",
	"context window exceeded", "context_length_exceeded", "reduce the length of the messages",
	"maximum prompt length", "exceeds the available context size", "greater than the context length",
	"context window exceeds limit", "exceeded model token limit", "model_context_window_exceeded",
	"range of input length should be",
}

func isOverflow(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range overflowPatterns {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}
