package sessionfile

import (
	"strings"
	"time"

	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/valyala/fastjson"
)

// Entry is what a replay needs of one session entry. Fields that do not
// apply to the entry's type are zero.
type Entry struct {
	Line     int    // 1-based line of the file the entry was read from
	Type     string // session.TypeMessage, session.TypeCompaction, …
	ID       string
	ParentID string
	// Millis is the entry's time in Unix milliseconds (its ISO
	// timestamp; 0 when absent or unparsable).
	Millis int64

	// Role is a message entry's role (user, assistant, toolResult,
	// system, custom, bashExecution, …).
	Role string
	// Bytes is the size of the entry's line, the basis of the token
	// estimate of messages that carry no usage (about four bytes a token).
	Bytes int

	// Assistant messages.
	Provider, Model string
	StopReason      string // stop, length, toolUse, error, aborted
	ErrorMessage    string // cut to MaxErrorMessage bytes
	Usage           session.Usage
	HasUsage        bool
	ToolCalls       []ToolCall

	// Tool results.
	ToolName string
	IsError  bool

	// custom, custom_message and custom-role messages.
	CustomType string
	// WindowID is the windowId a reset artifact carries (data.windowId of
	// a custom entry, details.windowId of a custom message or compaction).
	WindowID string

	// compaction and branch_summary.
	SummaryBytes     int
	FirstKeptEntryID string
	TokensBefore     int64
	FromHook         bool

	// model_change (Provider too), thinking_level_change, session_info.
	ModelID       string
	ThinkingLevel string
	Name          string
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID   string
	Name string
	// Args is the raw JSON of the arguments, kept only for the tools
	// named in Options.KeepArgs and only up to MaxArgs bytes.
	Args []byte
}

// Known reports whether Pi 1.6 writes entries of this type.
func Known(typ string) bool {
	switch typ {
	case session.TypeMessage, session.TypeCompaction, session.TypeCustom, session.TypeCustomMessage,
		session.TypeContextEdit, session.TypeBranchSummary, session.TypeModelChange,
		session.TypeThinkingLevelChange, session.TypeUsage, session.TypeLabel, session.TypeSessionInfo:
		return true
	}
	return false
}

// ContextTokens is Pi's calculateContextTokens of the message's usage.
func (e *Entry) ContextTokens() int64 { return e.Usage.ContextTokens() }

// RequestTokens is the context the model was sent for this answer: the
// usage minus the answer's own output.
func (e *Entry) RequestTokens() int64 {
	n := e.Usage.ContextTokens() - e.Usage.Output
	if n < 0 {
		return 0
	}
	return n
}

// IsMarker reports a reset marker of this project (or of pi-context).
func (e *Entry) IsMarker() bool {
	return e.Type == session.TypeCustom && (e.CustomType == session.MarkerType || e.CustomType == session.LegacyMarkerType)
}

// IsBoot reports the hidden boot message of a reset boundary.
func (e *Entry) IsBoot() bool {
	return e.isCustomMessage() && (e.CustomType == session.BootType || e.CustomType == session.LegacyBootType)
}

// IsResetCompaction reports the retain-none compaction of a reset
// boundary: it keeps only itself.
func (e *Entry) IsResetCompaction() bool {
	return e.Type == session.TypeCompaction && e.FirstKeptEntryID != "" && e.FirstKeptEntryID == e.ID
}

func (e *Entry) isCustomMessage() bool {
	return e.Type == session.TypeCustomMessage || (e.Type == session.TypeMessage && e.Role == "custom")
}

// MaxErrorMessage bounds the error text kept of an assistant message.
const MaxErrorMessage = 512

// decode fills e from one parsed JSON object. It keeps copies of the
// strings it reads; v may be reused after it returns.
func (e *Entry) decode(v *fastjson.Value, o *decodeState) {
	e.Type = internType(v.GetStringBytes("type"))
	e.ID = str(v, "id")
	e.ParentID = str(v, "parentId")
	e.Millis = isoMillis(v.GetStringBytes("timestamp"))
	switch e.Type {
	case session.TypeMessage:
		e.decodeMessage(v.Get("message"), o)
	case session.TypeCompaction:
		e.SummaryBytes = len(v.GetStringBytes("summary"))
		e.FirstKeptEntryID = str(v, "firstKeptEntryId")
		e.TokensBefore = v.GetInt64("tokensBefore")
		e.FromHook = v.GetBool("fromHook")
		e.WindowID = str(v, "details", "windowId")
	case session.TypeBranchSummary:
		e.SummaryBytes = len(v.GetStringBytes("summary"))
		e.FromHook = v.GetBool("fromHook")
	case session.TypeCustom:
		e.CustomType = str(v, "customType")
		e.WindowID = str(v, "data", "windowId")
	case session.TypeCustomMessage:
		e.CustomType = str(v, "customType")
		e.WindowID = str(v, "details", "windowId")
	case session.TypeModelChange:
		e.Provider = str(v, "provider")
		e.ModelID = str(v, "modelId")
	case session.TypeThinkingLevelChange:
		e.ThinkingLevel = str(v, "thinkingLevel")
	case session.TypeSessionInfo:
		e.Name = str(v, "name")
	}
}

func (e *Entry) decodeMessage(m *fastjson.Value, o *decodeState) {
	if m == nil {
		return
	}
	e.Role = str(m, "role")
	switch e.Role {
	case "hookMessage":
		// Pi's migrateV2ToV3 renames it; a version 3 file never has it,
		// but reading it as Pi would after migration costs nothing.
		e.Role = "custom"
		fallthrough
	case "custom":
		e.CustomType = str(m, "customType")
		e.WindowID = str(m, "details", "windowId")
	case "assistant":
		e.Provider = o.last.provider.get(m.GetStringBytes("provider"))
		e.Model = o.last.model.get(m.GetStringBytes("model"))
		e.StopReason = internStop(m.GetStringBytes("stopReason"))
		if b := m.GetStringBytes("errorMessage"); len(b) > 0 {
			if len(b) > MaxErrorMessage {
				b = b[:MaxErrorMessage]
			}
			e.ErrorMessage = string(b)
		}
		if u := m.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
			e.HasUsage = true
			e.Usage = session.Usage{
				Input: u.GetInt64("input"), Output: u.GetInt64("output"),
				CacheRead: u.GetInt64("cacheRead"), CacheWrite: u.GetInt64("cacheWrite"),
				TotalTokens: u.GetInt64("totalTokens"),
			}
		}
		for _, b := range m.GetArray("content") {
			if string(b.GetStringBytes("type")) != "toolCall" {
				continue
			}
			if len(e.ToolCalls) >= MaxToolCalls {
				break
			}
			c := ToolCall{ID: str(b, "id"), Name: internName(b.GetStringBytes("name"))}
			if o.KeepArgs[c.Name] {
				if a := b.Get("arguments"); a != nil {
					raw := a.MarshalTo(nil)
					if len(raw) <= MaxArgs {
						c.Args = raw
					}
				}
			}
			e.ToolCalls = append(e.ToolCalls, c)
		}
	case "toolResult":
		e.ToolName = internName(m.GetStringBytes("toolName"))
		e.IsError = m.GetBool("isError")
	}
	e.Role = internRole(e.Role)
}

// MaxToolCalls bounds the tool calls kept of one assistant message; more
// are counted as calls but not kept.
const MaxToolCalls = 256

// MaxArgs bounds the bytes of one tool call's arguments kept.
const MaxArgs = 64 << 10

func str(v *fastjson.Value, keys ...string) string {
	b := v.GetStringBytes(keys...)
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// decodeState is what decoding keeps from entry to entry: the caller's
// options and the last model and provider names, which repeat on every
// answer of a session.
type decodeState struct {
	*Options
	last struct{ model, provider lastString }
}

// lastString returns the previous string when the bytes are the same, so
// a session's thousand answers share one copy of their model's name.
type lastString struct{ s string }

func (l *lastString) get(b []byte) string {
	if string(b) != l.s {
		l.s = string(b)
	}
	return l.s
}

// internType returns the constant of a type Pi writes.
func internType(b []byte) string {
	switch string(b) {
	case session.TypeMessage:
		return session.TypeMessage
	case session.TypeCompaction:
		return session.TypeCompaction
	case session.TypeCustom:
		return session.TypeCustom
	case session.TypeCustomMessage:
		return session.TypeCustomMessage
	case session.TypeModelChange:
		return session.TypeModelChange
	case session.TypeSession:
		return session.TypeSession
	}
	return string(b)
}

func internStop(b []byte) string {
	switch string(b) {
	case "stop":
		return "stop"
	case "toolUse":
		return "toolUse"
	case "error":
		return "error"
	case "aborted":
		return "aborted"
	case "length":
		return "length"
	}
	return string(b)
}

// internRole returns a constant for the roles Pi writes, so that a
// million entries do not hold a million copies of "assistant".
func internRole(r string) string {
	switch r {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "toolResult":
		return "toolResult"
	case "system":
		return "system"
	case "custom":
		return "custom"
	}
	return r
}

var commonTools = map[string]string{}

func init() {
	for _, n := range []string{"read", "bash", "edit", "write", "grep", "find", "ls"} {
		commonTools[n] = n
	}
}

func internName(b []byte) string {
	if s, ok := commonTools[string(b)]; ok {
		return s
	}
	return string(b)
}

// isoMillis parses the ISO 8601 timestamps Pi writes
// (Date.toISOString: 2024-12-03T14:00:00.000Z) without allocating; other
// RFC 3339 forms go through time.Parse.
func isoMillis(b []byte) int64 {
	if len(b) == 24 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' && b[19] == '.' && b[23] == 'Z' {
		n := func(i, j int) int {
			v := 0
			for _, c := range b[i:j] {
				if c < '0' || c > '9' {
					return -1
				}
				v = v*10 + int(c-'0')
			}
			return v
		}
		y, mo, d, h, mi, s, ms := n(0, 4), n(5, 7), n(8, 10), n(11, 13), n(14, 16), n(17, 19), n(20, 23)
		if y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 && s < 61 && ms >= 0 {
			return time.Date(y, time.Month(mo), d, h, mi, s, ms*1e6, time.UTC).UnixMilli()
		}
		return 0
	}
	if len(b) == 0 {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
