package sessionfile

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/resetpolicy/resetpolicy/host/estimate"
	"github.com/resetpolicy/resetpolicy/host/jsonscan"
	"github.com/resetpolicy/resetpolicy/host/session"
)

// Entry is what a replay needs of one session entry, kept small: a
// replay holds every entry of its largest session (see the package's
// memory bound). Fields that do not apply to the entry's type are zero;
// what only some entries carry is in Extra.
type Entry struct {
	Type     string // session.TypeMessage, session.TypeCompaction, …
	Role     string // a message entry's role (user, assistant, toolResult, system, custom, …)
	ID       string
	ParentID string // shares the previous entry's ID string when it names it
	// Name is an assistant message's model, a tool result's tool, the
	// customType of a custom entry, custom_message or custom-role message.
	Name string
	// Millis is the entry's time in Unix milliseconds (its ISO
	// timestamp; 0 when absent or unparsable).
	Millis int64
	// Usage is Pi's calculateContextTokens of an assistant message's
	// usage (HasUsage: the message has a usage object Pi can count).
	Usage int64
	// Output is the usage's output tokens.
	Output int32
	// Est is Pi's estimateTokens of the messages Pi makes of the entry
	// (host/estimate): 0 for entries that make none.
	Est int32
	// Line is the 1-based line of the file the entry was read from.
	Line int32
	// Calls counts the tool calls of an assistant message; those of the
	// tools named in Options.KeepArgs (every call when it is nil) are
	// kept in Extra.ToolCalls.
	Calls uint16
	stop  uint8
	flags uint8
	// X holds what few entries carry (nil for most).
	X *Extra
}

// Extra is what only some entries carry.
type Extra struct {
	// Provider of a model_change.
	Provider     string
	ErrorMessage string // an assistant's, cut to MaxErrorMessage bytes
	ToolCalls    []ToolCall
	// WindowID is the windowId a reset artifact carries (data.windowId of
	// a custom entry, details.windowId of a custom message or compaction).
	WindowID string
	// compaction and branch_summary.
	FirstKeptEntryID string
	TokensBefore     int64
	// SystemEst is the estimate of a compaction's systemMessage.
	SystemEst int64
	// model_change, thinking_level_change, session_info.
	ModelID       string
	ThinkingLevel string
	SessionName   string
}

const (
	flagHasUsage = 1 << iota
	flagIsError
	flagFromHook
	// flagShadowed: a later entry has the same id (a lookup finds that one).
	flagShadowed
)

// HasUsage reports an assistant message with a usage object.
func (e *Entry) HasUsage() bool { return e.flags&flagHasUsage != 0 }

// IsError reports a tool result marked as an error.
func (e *Entry) IsError() bool { return e.flags&flagIsError != 0 }

// FromHook reports a compaction or branch summary an extension wrote.
func (e *Entry) FromHook() bool { return e.flags&flagFromHook != 0 }

// StopReason is an assistant message's stop reason (stop, length,
// toolUse, error, aborted; "other" for one Pi does not write).
func (e *Entry) StopReason() string { return stops[e.stop] }

var stops = [...]string{"", "stop", "toolUse", "error", "aborted", "length", "other"}

func stopCode(b []byte) uint8 {
	if len(b) == 0 {
		return 0
	}
	for i, s := range stops[1 : len(stops)-1] {
		if string(b) == s {
			return uint8(i + 1)
		}
	}
	return uint8(len(stops) - 1)
}

func (e *Entry) x() *Extra {
	if e.X == nil {
		e.X = &Extra{}
	}
	return e.X
}

var noExtra Extra

// Extra returns the entry's extra fields (zero when it has none).
func (e *Entry) Extra() *Extra {
	if e.X == nil {
		return &noExtra
	}
	return e.X
}

// CustomType is the customType of a custom entry, custom_message or
// custom-role message (its Name).
func (e *Entry) CustomType() string {
	if e.Type == session.TypeCustom || e.isCustomMessage() {
		return e.Name
	}
	return ""
}

// windowID keeps a reset artifact's window id, in Extra: most custom
// entries have none and need no Extra.
func (e *Entry) windowID(id string) {
	if id != "" {
		e.x().WindowID = id
	}
}

// Model is an assistant message's model (its Name).
func (e *Entry) Model() string {
	if e.Role == "assistant" {
		return e.Name
	}
	return ""
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID   string
	Name string
	// Args is the raw JSON of the arguments, kept only up to MaxArgs
	// bytes.
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
func (e *Entry) ContextTokens() int64 { return e.Usage }

// RequestTokens is the context the model was sent for this answer: the
// usage minus the answer's own output.
func (e *Entry) RequestTokens() int64 {
	n := e.Usage - int64(e.Output)
	if n < 0 {
		return 0
	}
	return n
}

// ValidUsage reports the usage Pi's estimate starts from: an answer that
// neither failed nor was aborted, with a usage that counts more than 0.
func (e *Entry) ValidUsage() bool {
	return e.Role == "assistant" && e.HasUsage() && e.stop != 3 && e.stop != 4 && e.Usage > 0
}

// IsMarker reports a reset marker of this project (or of pi-context).
func (e *Entry) IsMarker() bool {
	if e.Type != session.TypeCustom {
		return false
	}
	return e.Name == session.MarkerType || e.Name == session.LegacyMarkerType
}

// IsBoot reports the hidden boot message of a reset boundary.
func (e *Entry) IsBoot() bool {
	return e.isCustomMessage() && (e.Name == session.BootType || e.Name == session.LegacyBootType)
}

// IsResetCompaction reports the retain-none compaction of a reset
// boundary: it keeps only itself.
func (e *Entry) IsResetCompaction() bool {
	return e.Type == session.TypeCompaction && e.X != nil && e.X.FirstKeptEntryID != "" && e.X.FirstKeptEntryID == e.ID
}

// IsSystem reports a system message (prompt state: Pi's estimate counts
// only the current one once the context is estimated whole).
func (e *Entry) IsSystem() bool { return e.Type == session.TypeMessage && e.Role == "system" }

func (e *Entry) isCustomMessage() bool {
	return e.Type == session.TypeCustomMessage || (e.Type == session.TypeMessage && e.Role == "custom")
}

// MaxErrorMessage bounds the error text kept of an assistant message.
const MaxErrorMessage = 512

// MaxTokenCount bounds a token count read from a file: a usage or
// tokensBefore above it (or negative, or not a whole number) is no count
// a provider reports, and is a Problem of its line.
const MaxTokenCount = 1<<31 - 1

// decode fills e from one parsed JSON object. It keeps copies of the
// strings it reads; v may be reused after it returns.
func (e *Entry) decode(v jsonscan.Value, o *decodeState) {
	e.Type = internType(v.At(keyType).Str())
	if p := v.At(keyParentID).Str(); len(p) > 0 {
		if string(p) == o.lastID {
			e.ParentID = o.lastID
		} else {
			e.ParentID = string(p)
		}
	}
	e.ID = o.id(v.At(keyID).Str())
	e.Millis = isoMillis(v.At(keyTimestamp).Str())
	switch e.Type {
	case session.TypeMessage:
		e.decodeMessage(v.At(keyMessage), o)
	case session.TypeCompaction:
		x := e.x()
		e.Est = clamp32(estimate.Tokens(estimate.SummaryChars(v.Get("summary"))))
		x.SystemEst = estimate.Message(v.Get("systemMessage"))
		x.FirstKeptEntryID = str(v, "firstKeptEntryId")
		x.TokensBefore = o.count(v, "tokensBefore")
		if v.Get("fromHook").Bool() {
			e.flags |= flagFromHook
		}
		x.WindowID = str(v, "details", "windowId")
	case session.TypeBranchSummary:
		e.Est = clamp32(estimate.Tokens(estimate.SummaryChars(v.Get("summary"))))
		if v.Get("fromHook").Bool() {
			e.flags |= flagFromHook
		}
	case session.TypeCustom:
		e.Name = o.name(v.Get("customType").Str())
		e.windowID(str(v, "data", "windowId"))
	case session.TypeCustomMessage:
		e.Name = o.name(v.Get("customType").Str())
		e.windowID(str(v, "details", "windowId"))
		// Pi makes a custom-role message of it: its content counts.
		e.Est = clamp32(estimate.Tokens(estimate.ContentChars(v.Get("content"))))
	case session.TypeModelChange:
		x := e.x()
		x.Provider = str(v, "provider")
		x.ModelID = str(v, "modelId")
	case session.TypeThinkingLevelChange:
		e.x().ThinkingLevel = str(v, "thinkingLevel")
	case session.TypeSessionInfo:
		e.x().SessionName = str(v, "name")
	}
}

// The keys read from most entries, each made once (jsonscan.Key): an
// entry's, a message's and a content block's.
var (
	keyType         = jsonscan.NewKey("type")
	keyParentID     = jsonscan.NewKey("parentId")
	keyID           = jsonscan.NewKey("id")
	keyTimestamp    = jsonscan.NewKey("timestamp")
	keyMessage      = jsonscan.NewKey("message")
	keyRole         = jsonscan.NewKey("role")
	keyContent      = jsonscan.NewKey("content")
	keyModel        = jsonscan.NewKey("model")
	keyStopReason   = jsonscan.NewKey("stopReason")
	keyErrorMessage = jsonscan.NewKey("errorMessage")
	keyUsage        = jsonscan.NewKey("usage")
	keyName         = jsonscan.NewKey("name")
	keyArguments    = jsonscan.NewKey("arguments")
	keyToolName     = jsonscan.NewKey("toolName")
	keyIsError      = jsonscan.NewKey("isError")
)

func clamp32(n int64) int32 {
	if n > 1<<31-1 {
		return 1<<31 - 1
	}
	return int32(n)
}

func (e *Entry) decodeMessage(m jsonscan.Value, o *decodeState) {
	if !m.Exists() {
		return
	}
	// The role and an assistant's blocks are read once for both the
	// entry and its estimate.
	role := m.At(keyRole).Str()
	e.Role = internRole(role)
	if e.Role != "assistant" {
		e.Est = clamp32(estimate.Tokens(estimate.RoleChars(role, m)))
	}
	switch e.Role {
	case "hookMessage":
		// Pi's migrateV2ToV3 renames it; a version 3 file never has it,
		// but reading it as Pi would after migration costs nothing.
		e.Role = "custom"
		e.Est = clamp32(estimate.Tokens(estimate.ContentChars(m.At(keyContent))))
		fallthrough
	case "custom":
		e.Name = o.name(m.Get("customType").Str())
		e.windowID(str(m, "details", "windowId"))
	case "assistant":
		e.Name = o.last.model.get(m.At(keyModel).Str())
		e.stop = stopCode(m.At(keyStopReason).Str())
		if b := m.At(keyErrorMessage).Str(); len(b) > 0 {
			if len(b) > MaxErrorMessage {
				b = b[:MaxErrorMessage]
			}
			e.x().ErrorMessage = string(b)
		}
		if u := m.At(keyUsage); u.Kind() == jsonscan.Object {
			e.decodeUsage(u, o)
		}
		var chars int64
		for b := range m.At(keyContent).Elems() {
			typ := b.At(keyType).Str()
			chars += estimate.AssistantBlockChars(b, typ)
			if string(typ) != "toolCall" {
				continue
			}
			if e.Calls < 1<<16-1 {
				e.Calls++
			}
			name := b.At(keyName).Str()
			if o.KeepArgs != nil && !o.KeepArgs[string(name)] {
				continue
			}
			x := e.x()
			if len(x.ToolCalls) >= MaxToolCalls {
				continue
			}
			c := ToolCall{ID: str(b, "id"), Name: internName(name)}
			if a := b.At(keyArguments); a.Exists() {
				raw := a.AppendJSON(nil)
				if len(raw) <= MaxArgs {
					c.Args = raw
				}
			}
			x.ToolCalls = append(x.ToolCalls, c)
		}
		e.Est = clamp32(estimate.Tokens(chars))
	case "toolResult":
		e.Name = internName(m.At(keyToolName).Str())
		if m.At(keyIsError).Bool() {
			e.flags |= flagIsError
		}
	}
}

// decodeUsage takes a usage Pi can count: every part a whole number from
// 0 to MaxTokenCount. A part that is not is a problem of the line, and
// the usage is not taken (the message counts as one without usage).
func (e *Entry) decodeUsage(u jsonscan.Value, o *decodeState) {
	var parts [5]int64
	for i, k := range usageKeys {
		n, ok := o.tokenCount(u.At(k), usageNames[i])
		if !ok {
			return
		}
		parts[i] = n
	}
	e.flags |= flagHasUsage
	// calculateContextTokens: totalTokens || input+output+cacheRead+cacheWrite.
	if parts[4] != 0 {
		e.Usage = parts[4]
	} else {
		e.Usage = parts[0] + parts[1] + parts[2] + parts[3]
	}
	e.Output = int32(parts[1])
}

var (
	usageKeys  = [5]jsonscan.Key{jsonscan.NewKey("input"), jsonscan.NewKey("output"), jsonscan.NewKey("cacheRead"), jsonscan.NewKey("cacheWrite"), jsonscan.NewKey("totalTokens")}
	usageNames = [5]string{"usage.input", "usage.output", "usage.cacheRead", "usage.cacheWrite", "usage.totalTokens"}
)

// MaxToolCalls bounds the tool calls kept of one assistant message; more
// are counted as calls but not kept.
const MaxToolCalls = 256

// MaxArgs bounds the bytes of one tool call's arguments kept.
const MaxArgs = 64 << 10

func str(v jsonscan.Value, keys ...string) string {
	b := v.Get(keys...).Str()
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// decodeState is what decoding keeps from entry to entry: the caller's
// options, the last model name (it repeats on every answer of a
// session), the last id (the next entry's parent, most often) and the
// problems of the line being decoded.
type decodeState struct {
	*Options
	last   struct{ model lastString }
	names  map[string]string // interned custom types, at most maxNames
	lastID string
	line   int
	file   *File
}

// id copies an entry's id.
func (o *decodeState) id(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	o.lastID = string(b)
	return o.lastID
}

func (o *decodeState) problem(msg string) {
	o.file.problem(o.line, msg)
}

// count reads an optional token count (absent: 0); an absurd one is a
// problem and reads as 0.
func (o *decodeState) count(v jsonscan.Value, key string) int64 {
	n, _ := o.tokenCount(v.Get(key), key)
	return n
}

// tokenCount reads a token count: absent or null is 0; a number that is
// not a whole count from 0 to MaxTokenCount (negative, fractional,
// 1e308, NaN, an overflowing 1e999), or a value that is not a number, is
// a problem of the line.
func (o *decodeState) tokenCount(v jsonscan.Value, what string) (int64, bool) {
	if k := v.Kind(); k == jsonscan.None || k == jsonscan.Null {
		return 0, true
	}
	if v.Kind() != jsonscan.Number {
		o.problem(fmt.Sprintf("%s is %s, not a token count; ignored", what, shown(v)))
		return 0, false
	}
	// Most counts are small integers: no float parse.
	if n, err := v.Int64(); err == nil && n >= 0 && n <= MaxTokenCount {
		return n, true
	}
	f, err := v.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > MaxTokenCount || f != math.Trunc(f) {
		o.problem(fmt.Sprintf("%s is %s, not a token count (a whole number from 0 to %d); ignored", what, shown(v), MaxTokenCount))
		return 0, false
	}
	return int64(f), true
}

// shown is a value as a problem quotes it: as the file has it, cut to 32
// bytes.
func shown(v jsonscan.Value) string {
	raw := v.Raw()
	if len(raw) > 32 {
		return string(raw[:32]) + "…"
	}
	return string(raw)
}

// maxNames bounds the custom types a Reader interns.
const maxNames = 256

// name interns a custom type: a session's extensions write a handful of
// them on thousands of entries.
func (o *decodeState) name(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := o.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if o.names == nil {
		o.names = map[string]string{}
	}
	if len(o.names) < maxNames {
		o.names[s] = s
	}
	return s
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

// internRole returns a constant for the roles Pi writes, so that a
// million entries do not hold a million copies of "assistant".
func internRole(b []byte) string {
	switch string(b) {
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
	return string(b)
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
