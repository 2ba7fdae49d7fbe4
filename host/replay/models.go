package replay

import "strings"

// contextWindows are the context windows of common models, matched by
// the longest prefix of the model id (provider prefixes stripped). They
// are the providers' published input limits; --context-window overrides
// them for a model the table does not know or a deployment that differs.
var contextWindows = []struct {
	prefix string
	window int64
}{
	{"claude-", 200000},
	{"gpt-4o", 128000},
	{"gpt-4.1", 1047576},
	{"gpt-4-turbo", 128000},
	{"gpt-5", 400000},
	{"o1", 200000},
	{"o3", 200000},
	{"o4-mini", 200000},
	{"codex-", 400000},
	{"gemini-1.5", 1048576},
	{"gemini-2", 1048576},
	{"gemini-3", 1048576},
	{"grok-4", 256000},
	{"grok-3", 131072},
	{"grok-code", 256000},
	{"deepseek", 128000},
	{"qwen3-coder", 262144},
	{"qwen", 131072},
	{"kimi-k2", 262144},
	{"glm-4.5", 131072},
	{"glm-4.6", 204800},
	{"glm-", 131072},
	{"mistral-large", 131072},
	{"devstral", 131072},
	{"codestral", 256000},
	{"llama", 131072},
	{"gpt-oss", 131072},
}

// DefaultContextWindow is the host contract's default, used for a model
// the table does not know.
const DefaultContextWindow = 200000

// ContextWindow returns a model's context window and whether the table
// knew the model.
func ContextWindow(model string) (int64, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, window := 0, int64(0)
	for _, c := range contextWindows {
		if strings.HasPrefix(m, c.prefix) && len(c.prefix) > best {
			best, window = len(c.prefix), c.window
		}
	}
	if best == 0 {
		return DefaultContextWindow, false
	}
	return window, true
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
