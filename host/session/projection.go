package session

import (
	"encoding/json"
	"strings"
)

// Pi's wrappers around summaries when it converts them for the provider
// (messages.js).
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
)

// CompactionSummaryText is the user-role text Pi sends for a compaction
// summary. For a retain-none checkpoint (empty summary) it is the empty
// wrapper.
func CompactionSummaryText(summary string) string {
	return CompactionSummaryPrefix + summary + CompactionSummarySuffix
}

// ContextMessage is one model-visible message and the entry it comes
// from ("" for a message a projection synthesised, such as a folded
// system head).
type ContextMessage struct {
	EntryID string
	Message json.RawMessage
}

// Role is the message's role.
func (m ContextMessage) Role() string {
	o, err := parseObject(m.Message)
	if err != nil {
		return ""
	}
	return decodeString(o.get("role"))
}

// Context is a projected message list.
type Context []ContextMessage

// Messages returns the messages alone.
func (c Context) Messages() []json.RawMessage {
	out := make([]json.RawMessage, len(c))
	for i, m := range c {
		out[i] = m.Message
	}
	return out
}

// Roles lists the roles, handy in tests and timelines.
func (c Context) Roles() []string {
	out := make([]string, len(c))
	for i, m := range c {
		out[i] = m.Role()
	}
	return out
}

// ContextEntries is Pi's buildContextEntries over a branch: with no
// compaction the whole path; otherwise the latest compaction first, then
// the non-system entries from its firstKeptEntryId up to it, then every
// entry after it. A self-retaining compaction keeps nothing before it.
func ContextEntries(path []*Entry) []*Entry {
	ci := -1
	for i, e := range path {
		if e.Type() == TypeCompaction {
			ci = i
		}
	}
	if ci < 0 {
		return append([]*Entry(nil), path...)
	}
	c := path[ci]
	out := []*Entry{c}
	kept := c.FirstKeptEntryID()
	found := false
	for _, e := range path[:ci] {
		if e.ID() == kept {
			found = true
		}
		if found && !(e.Type() == TypeMessage && e.Role() == "system") {
			out = append(out, e)
		}
	}
	return append(out, path[ci+1:]...)
}

// Canonical is Pi's canonical projection of a branch
// (buildSessionProjection): the context entries turned into messages,
// with the latest context_edit for each target applied. Only the leading
// compaction contributes its system checkpoint and summary.
func Canonical(path []*Entry) Context {
	entries := ContextEntries(path)
	edits := map[string]*Entry{}
	for _, e := range entries {
		if e.Type() == TypeContextEdit {
			edits[e.Str("targetId")] = e
		}
	}
	var out Context
	for i, e := range entries {
		if e.Type() == TypeCompaction && i > 0 {
			continue
		}
		for _, m := range applyEdit(entryMessages(e), edits[e.ID()]) {
			out = append(out, ContextMessage{EntryID: e.ID(), Message: m})
		}
	}
	return out
}

// entryMessages is Pi's sessionEntryToContextMessages.
func entryMessages(e *Entry) []json.RawMessage {
	switch e.Type() {
	case TypeMessage:
		m, err := parseObject(e.Message())
		if err != nil {
			return nil
		}
		role := decodeString(m.get("role"))
		switch {
		case role == "hookMessage":
			m.add("role", "custom")
		case role == "system" && isNull(m.get("content")):
			m.add("content", "")
		case (role == "user" || role == "assistant" || role == "toolResult") && isNull(m.get("content")):
			m.set("content", json.RawMessage("[]"))
		default:
			return []json.RawMessage{e.Message()}
		}
		return []json.RawMessage{m.bytes()}
	case TypeCustomMessage:
		content := e.Field("content")
		if isNull(content) {
			content = json.RawMessage("[]")
		}
		o := newObject().add("role", "custom").add("customType", e.CustomType()).set2("content", content).
			set2("display", orNull(e.Field("display"))).addOpt("details", e.Field("details")).
			set2("timestamp", jsMillis(e.Timestamp()))
		return []json.RawMessage{o.bytes()}
	case TypeBranchSummary:
		if e.Summary() == "" {
			return nil
		}
		o := newObject().add("role", "branchSummary").add("summary", e.Summary()).
			set2("fromId", orNull(e.Field("fromId"))).set2("timestamp", jsMillis(e.Timestamp()))
		return []json.RawMessage{o.bytes()}
	case TypeCompaction:
		o := newObject().add("role", "compactionSummary").add("summary", e.Summary()).
			addOpt("tokensBefore", e.Field("tokensBefore")).set2("timestamp", jsMillis(e.Timestamp()))
		if sys := e.Field("systemMessage"); !isNull(sys) {
			return []json.RawMessage{sys, o.bytes()}
		}
		return []json.RawMessage{o.bytes()}
	}
	return nil
}

func (o *object) set2(key string, v json.RawMessage) *object {
	o.set(key, v)
	return o
}

func orNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// applyEdit is Pi's projectContextEntry: a null replacement omits the
// messages, otherwise user, assistant, tool-result and custom messages get
// the replacement content (a string becomes one text block for assistant
// and tool-result messages).
func applyEdit(msgs []json.RawMessage, edit *Entry) []json.RawMessage {
	if edit == nil {
		return msgs
	}
	rep := edit.Field("replacement")
	if isNull(rep) {
		return nil
	}
	ro, err := parseObject(rep)
	if err != nil {
		return msgs
	}
	content := ro.get("content")
	out := make([]json.RawMessage, 0, len(msgs))
	for _, m := range msgs {
		o, err := parseObject(m)
		if err != nil {
			out = append(out, m)
			continue
		}
		role := decodeString(o.get("role"))
		switch role {
		case "user", "assistant", "toolResult", "custom":
			c := content
			if (role == "assistant" || role == "toolResult") && len(c) > 0 && c[0] == '"' {
				c = encode([]Block{TextBlock(decodeString(c))})
			}
			o.set("content", c)
			out = append(out, o.bytes())
		default:
			out = append(out, m)
		}
	}
	return out
}

// CurrentSystemMessage is pi-ai's getCurrentSystemMessage: every system
// message replayed into one. Non-empty content is appended (joined by a
// blank line), sections are patched by name (null removes one), tools
// are removed then added by name. ok is false when there is no system
// message and no tool.
func CurrentSystemMessage(msgs []json.RawMessage) (msg json.RawMessage, ok bool) {
	var content []string
	secs := newObject()
	tools := newObject()
	var ts json.RawMessage
	for _, raw := range msgs {
		m, err := parseObject(raw)
		if err != nil || decodeString(m.get("role")) != "system" {
			continue
		}
		if ts == nil {
			ts = orNull(m.get("timestamp"))
		}
		var c Content
		if !isNull(m.get("content")) && json.Unmarshal(m.get("content"), &c) == nil {
			if t := c.String(); t != "" {
				content = append(content, t)
			}
		}
		if s, err := parseObject(m.get("sections")); err == nil {
			for _, k := range s.keys {
				if isNull(s.get(k)) {
					secs.del(k)
				} else {
					secs.set(k, s.get(k))
				}
			}
		}
		for _, t := range rawList(m.get("toolsRemoved")) {
			if to, err := parseObject(t); err == nil {
				tools.del(decodeString(to.get("name")))
			}
		}
		for _, t := range rawList(m.get("toolsAdded")) {
			if to, err := parseObject(t); err == nil {
				tools.set(decodeString(to.get("name")), t)
			}
		}
	}
	if ts == nil && len(tools.keys) == 0 {
		return nil, false
	}
	if ts == nil {
		ts = json.RawMessage("0")
	}
	o := newObject().add("role", "system").add("content", strings.Join(content, "\n\n"))
	if len(secs.keys) > 0 {
		o.set("sections", secs.bytes())
	}
	if len(tools.keys) > 0 {
		list := make([]json.RawMessage, 0, len(tools.keys))
		for _, k := range tools.keys {
			list = append(list, tools.get(k))
		}
		o.add("toolsAdded", list)
	}
	o.set("timestamp", ts)
	return o.bytes(), true
}

func rawList(raw json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Mode says how a projection was made.
type Mode int

const (
	// ModeCanonical: no reset marker governs the branch (no reset, or the
	// latest reset is a native compaction-time boundary); Pi's projection
	// is sent as it is.
	ModeCanonical Mode = iota + 1
	// ModeCheckpoint: the active window's marker is checkpoint-backed;
	// Pi's projection is used directly, from that checkpoint on.
	ModeCheckpoint
	// ModeLegacy: a marker-only reset; Pi's projection is sliced at the
	// matching boot, keeping the prompt and tool state.
	ModeLegacy
	// ModeAbort: the boot is absent. The context is system-only (the
	// replayed prompt and tool state, which Pi requires at index 0) and
	// the run must be stopped instead of sending raw history.
	ModeAbort
)

func (m Mode) String() string {
	switch m {
	case ModeCanonical:
		return "canonical"
	case ModeCheckpoint:
		return "checkpoint"
	case ModeLegacy:
		return "legacy"
	case ModeAbort:
		return "abort"
	}
	return "invalid"
}

// Projection is what the provider sees for a branch.
type Projection struct {
	Mode     Mode
	WindowID string
	// Marker, Boot and Checkpoint are the governing artifacts, when found.
	Marker, Boot, Checkpoint *Entry
	// Context is the message list; on abort only the system head.
	Context Context
	// Clamped reports that a later compaction kept entries from before
	// the checkpoint and those were dropped.
	Clamped bool
	// Reason explains an abort.
	Reason string
}

// Project projects a branch for the provider under the latest reset
// marker on it (seed 000: "context_with_system selects the active boot by
// durable details.windowId").
func Project(path []*Entry) Projection {
	mi := lastIndex(path, IsMarker)
	if mi < 0 || lastIndex(path, IsTrustedCheckpoint) > mi {
		return canonical(path)
	}
	return projectAt(path, mi)
}

// ProjectWindow projects a branch for a named window. It aborts when the
// branch has no marker for that window or a later reset replaced it.
func ProjectWindow(path []*Entry, windowID string) Projection {
	mi := lastIndex(path, func(e *Entry) bool { return IsMarker(e) && e.WindowID() == windowID })
	if mi < 0 {
		return abort(path, Projection{WindowID: windowID}, "no reset marker for window "+windowID+" on this branch")
	}
	if lastIndex(path, IsMarker) > mi || lastIndex(path, IsTrustedCheckpoint) > mi {
		return abort(path, Projection{WindowID: windowID, Marker: path[mi]}, "a later reset replaced window "+windowID)
	}
	return projectAt(path, mi)
}

// abort returns the safe result: the system head alone.
func abort(path []*Entry, p Projection, reason string) Projection {
	p.Mode, p.Reason, p.Context = ModeAbort, reason, nil
	if head, ok := CurrentSystemMessage(Canonical(path).Messages()); ok {
		p.Context = Context{{Message: head}}
	}
	return p
}

func canonical(path []*Entry) Projection {
	p := Projection{Mode: ModeCanonical, WindowID: ActiveWindow(path), Context: Canonical(path)}
	if ci := lastIndex(path, IsTrustedCheckpoint); ci >= 0 {
		p.Checkpoint = path[ci]
	}
	return p
}

func projectAt(path []*Entry, mi int) Projection {
	marker := path[mi]
	p := Projection{WindowID: marker.WindowID(), Marker: marker}
	for _, e := range path[mi+1:] {
		if IsBoot(e) && e.WindowID() == p.WindowID {
			p.Boot = e
		}
	}
	if p.Boot == nil {
		return abort(path, p, "the boot message for window "+p.WindowID+" is absent")
	}
	ctx := Canonical(path)
	if CheckpointBacked(path, mi) {
		p.Mode, p.Checkpoint = ModeCheckpoint, path[mi-1]
		before := map[string]bool{}
		for _, e := range path[:mi-1] {
			before[e.ID()] = true
		}
		for _, m := range ctx {
			if before[m.EntryID] {
				p.Clamped = true
				continue
			}
			p.Context = append(p.Context, m)
		}
		return p
	}
	k := -1
	for i, m := range ctx {
		if m.EntryID == p.Boot.ID() {
			k = i
			break
		}
	}
	if k < 0 {
		return abort(path, p, "the boot message for window "+p.WindowID+" is not in the projected context")
	}
	p.Mode = ModeLegacy
	if head, ok := CurrentSystemMessage(ctx[:k].Messages()); ok {
		p.Context = append(p.Context, ContextMessage{Message: head})
	}
	p.Context = append(p.Context, ctx[k:]...)
	return p
}

func lastIndex(path []*Entry, pred func(*Entry) bool) int {
	for i := len(path) - 1; i >= 0; i-- {
		if pred(path[i]) {
			return i
		}
	}
	return -1
}
