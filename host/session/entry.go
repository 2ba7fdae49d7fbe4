package session

import (
	"encoding/json"
	"fmt"
)

// Entry types Pi 1.6 writes (session-format.md). The header line has type
// TypeSession and is not part of the tree.
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeCompaction          = "compaction"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeContextEdit         = "context_edit"
	TypeBranchSummary       = "branch_summary"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeUsage               = "usage"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// CurrentVersion is the session format version Pi 1.6 writes.
const CurrentVersion = 3

// Entry is one line of a session file. It is immutable: it keeps the
// exact bytes it was read from (or built as) and writes them back
// unchanged, so members this package does not know survive a round trip.
type Entry struct {
	raw []byte
	obj *object
}

func newEntry(o *object) *Entry {
	b := o.bytes()
	return &Entry{raw: b, obj: o}
}

// ParseEntry parses one JSON line.
func ParseEntry(line []byte) (*Entry, error) {
	o, err := parseObject(line)
	if err != nil {
		return nil, err
	}
	if decodeString(o.get("type")) == "" {
		return nil, fmt.Errorf("entry has no type")
	}
	raw := make([]byte, len(line))
	copy(raw, line)
	return &Entry{raw: raw, obj: o}, nil
}

// MarshalJSON returns the entry's bytes as read or built.
func (e *Entry) MarshalJSON() ([]byte, error) { return e.raw, nil }

// Bytes returns the entry's JSON line without the newline.
func (e *Entry) Bytes() []byte { return append([]byte(nil), e.raw...) }

// Field returns a member's raw JSON, or nil when the member is absent.
func (e *Entry) Field(key string) json.RawMessage { return e.obj.get(key) }

// Has reports whether the member is present.
func (e *Entry) Has(key string) bool { return e.obj.has(key) }

// Keys returns the members in file order.
func (e *Entry) Keys() []string { return append([]string(nil), e.obj.keys...) }

// Str returns a string member, or "" when it is absent or not a string.
func (e *Entry) Str(key string) string { return decodeString(e.obj.get(key)) }

// Type is the entry type (TypeMessage, TypeCompaction, …).
func (e *Entry) Type() string { return e.Str("type") }

// ID is the entry id ("" for the header, whose "id" is the session id;
// use Header to read that).
func (e *Entry) ID() string {
	if e.Type() == TypeSession {
		return ""
	}
	return e.Str("id")
}

// Timestamp is the entry's ISO 8601 timestamp.
func (e *Entry) Timestamp() string { return e.Str("timestamp") }

// ParentID returns the parent entry id, or "" for a root entry
// (parentId null).
func (e *Entry) ParentID() string { return e.Str("parentId") }

// CustomType is the customType of a custom or custom_message entry.
func (e *Entry) CustomType() string { return e.Str("customType") }

// Message returns a message entry's message object.
func (e *Entry) Message() json.RawMessage { return e.obj.get("message") }

// Role returns a message entry's message role ("" for other entries).
// Sessions of version 2 used "hookMessage" for what is now "custom"; Role
// reports it as "custom".
func (e *Entry) Role() string {
	if e.Type() != TypeMessage {
		return ""
	}
	o, err := parseObject(e.Message())
	if err != nil {
		return ""
	}
	r := decodeString(o.get("role"))
	if r == "hookMessage" {
		return "custom"
	}
	return r
}

// Summary is the summary of a compaction or branch_summary entry.
func (e *Entry) Summary() string { return e.Str("summary") }

// FirstKeptEntryID is a compaction's firstKeptEntryId.
func (e *Entry) FirstKeptEntryID() string { return e.Str("firstKeptEntryId") }

// Display is a custom_message's display flag.
func (e *Entry) Display() bool {
	var b bool
	_ = json.Unmarshal(e.obj.get("display"), &b)
	return b
}

// WindowID returns the windowId a reset artifact carries: data.windowId
// of a custom entry, details.windowId of a custom_message or compaction
// entry (or of a custom message stored in a message entry).
func (e *Entry) WindowID() string {
	var holder json.RawMessage
	switch e.Type() {
	case TypeCustom:
		holder = e.obj.get("data")
	case TypeCustomMessage, TypeCompaction:
		holder = e.obj.get("details")
	case TypeMessage:
		if e.Role() == "custom" {
			if o, err := parseObject(e.Message()); err == nil {
				holder = o.get("details")
			}
		}
	}
	if isNull(holder) {
		return ""
	}
	o, err := parseObject(holder)
	if err != nil {
		return ""
	}
	return decodeString(o.get("windowId"))
}

// customTypeOf returns the customType of a custom entry, a custom_message
// entry or a custom message stored in a message entry.
func (e *Entry) customTypeOf() string {
	switch e.Type() {
	case TypeCustom, TypeCustomMessage:
		return e.CustomType()
	case TypeMessage:
		if e.Role() == "custom" {
			if o, err := parseObject(e.Message()); err == nil {
				return decodeString(o.get("customType"))
			}
		}
	}
	return ""
}

// isCustomMessage reports whether a custom message is carried by this
// entry (a custom_message entry, or a custom-role message entry).
func (e *Entry) isCustomMessage() bool {
	return e.Type() == TypeCustomMessage || (e.Type() == TypeMessage && e.Role() == "custom")
}

// Header is a session file's first line.
type Header struct {
	*Entry
}

// Version is the header's version (1 when absent, as Pi reads it).
func (h Header) Version() int {
	var v int
	if err := json.Unmarshal(h.Field("version"), &v); err != nil || v == 0 {
		return 1
	}
	return v
}

// SessionID is the session id.
func (h Header) SessionID() string { return h.Str("id") }

// CWD is the session's working directory.
func (h Header) CWD() string { return h.Str("cwd") }
