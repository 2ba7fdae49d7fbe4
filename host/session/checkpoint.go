package session

import (
	"encoding/json"
	"errors"
)

// Checkpoint builds seed 002's checkpoint: a self-retaining compaction
// draft whose summary is the generated summary of the complete context
// preview. In Pi terms "self-retaining" is a compaction whose
// firstKeptEntryId is its own id (the draft's null): the summary replaces
// every earlier entry and nothing before the compaction is kept, so the
// next request is the system checkpoint, the summary, and what follows.
// It is not a reset: IsTrustedCheckpoint is false for it because its
// summary is not empty.
func Checkpoint(summary string, details json.RawMessage, usage *Usage) (Draft, error) {
	if summary == "" {
		return Draft{}, errors.New("a summarising checkpoint needs a summary; an empty one would be a reset")
	}
	return Draft{Type: TypeCompaction, Summary: summary, Details: details, Usage: usage}, nil
}

// CompactedAtLeaf reports whether the branch already ends in a compaction,
// ignoring entries that do not change the context (seed 002: "An
// existing compaction at the same boundary prevents a duplicate"; Pi's
// own prepareCompaction also refuses when the last entry is a
// compaction).
func CompactedAtLeaf(path []*Entry) bool {
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type() == TypeCompaction {
			return true
		}
		if !neutral(e) {
			return false
		}
	}
	return false
}

// CompactionResult is Pi's CompactionResult as an extension returns it
// from session_before_compact.
type CompactionResult struct {
	Summary string
	// FirstKeptEntryID empty is written as null. Pi types the member as
	// a string, but SessionManager.appendCompaction stores
	// "firstKeptEntryId ?? id", so null makes the compaction
	// self-retaining; an extension cannot know the id in advance.
	FirstKeptEntryID string
	TokensBefore     int64
	Usage            *Usage
	Details          json.RawMessage
}

// BeforeCompactResult is a session_before_compact result:
// {"cancel": true} or {"compaction": {...}}.
type BeforeCompactResult struct {
	Cancel     bool
	Compaction *CompactionResult
}

// MarshalJSON writes the result as Pi reads it.
func (r BeforeCompactResult) MarshalJSON() ([]byte, error) {
	o := newObject()
	if r.Cancel {
		o.add("cancel", true)
	}
	if c := r.Compaction; c != nil {
		co := newObject().add("summary", c.Summary)
		if c.FirstKeptEntryID == "" {
			co.set("firstKeptEntryId", json.RawMessage("null"))
		} else {
			co.add("firstKeptEntryId", c.FirstKeptEntryID)
		}
		co.add("tokensBefore", c.TokensBefore).addOpt("usage", c.Usage).addOpt("details", c.Details)
		o.set("compaction", co.bytes())
	}
	return o.bytes(), nil
}

// CompactionTimeReset is seed 001's boundary, returned from
// session_before_compact ("Build the reset boundary immediately and
// return it. Never cancel and never take a model turn"): an empty-summary
// compaction with a null firstKeptEntryId, so that Pi writes a
// retain-none checkpoint, and details {windowId} naming the new window.
// tokensBefore is preparation.tokensBefore. A compaction result can
// carry only the compaction: no marker, boot or continuation.
func CompactionTimeReset(windowID string, tokensBefore int64) (BeforeCompactResult, error) {
	if windowID == "" {
		return BeforeCompactResult{}, errors.New("compaction-time reset needs a window id")
	}
	return BeforeCompactResult{Compaction: &CompactionResult{Summary: "", TokensBefore: tokensBefore,
		Details: windowData(windowID)}}, nil
}

// CancelCompaction is the result for an aborted signal (seed 001: "an
// aborted signal returns { cancel: true }").
func CancelCompaction() BeforeCompactResult { return BeforeCompactResult{Cancel: true} }

// Apply appends the compaction a session_before_compact result asks
// for, as Pi does (fromHook true). It returns nil for a cancel.
func (r BeforeCompactResult) Apply(s *Session) *Entry {
	if r.Cancel || r.Compaction == nil {
		return nil
	}
	c := r.Compaction
	yes := true
	return s.AppendCompaction(Compaction{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID,
		TokensBefore: c.TokensBefore, Details: c.Details, Usage: c.Usage, FromHook: &yes})
}

// FindCompactionTimeReset returns the latest retain-none checkpoint on
// the branch whose details.windowId is windowID. Use it to match
// session_compact instead of the event's compactionEntry: Pi 1.6 finds
// that entry with entries.find(e => e.type === "compaction" &&
// e.summary === summary), which for an empty summary is the first empty
// compaction in the file, not the new one.
func FindCompactionTimeReset(path []*Entry, windowID string) (*Entry, bool) {
	i := lastIndex(path, func(e *Entry) bool { return IsTrustedCheckpoint(e) && e.WindowID() == windowID })
	if i < 0 {
		return nil, false
	}
	return path[i], true
}
