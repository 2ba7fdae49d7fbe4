package session

import (
	"errors"
	"fmt"
)

// Custom types of the reset artifacts this package writes.
const (
	// MarkerType is the custom entry that records a reset; data {windowId}.
	MarkerType = "resetpolicy/reset-marker"
	// BootType is the hidden custom message that opens the new window;
	// details {windowId}.
	BootType = "resetpolicy/boot"
	// ContinuationType is the hidden custom message after the boot that
	// lets the run continue in the new window; details {windowId}.
	ContinuationType = "resetpolicy/continuation"
)

// Custom types written by the pi-context extension (seed 000), accepted
// when reading so that its sessions keep their boundaries.
const (
	LegacyMarkerType = "pi-context/reset-marker"
	LegacyBootType   = "pi-context/boot"
	// The seed does not name its continuation's type; this is the name
	// read as one.
	LegacyContinuationType = "pi-context/continuation"
)

// BoundaryMessages are the texts of the boundary's two messages; the
// policy owns them.
type BoundaryMessages struct {
	Boot         Content
	Continuation Content
}

func windowData(windowID string) []byte { return Raw(map[string]string{"windowId": windowID}) }

// Boundary builds the ordered retain-none reset boundary for a new
// window, as drafts to append at the leaf (seed 000, "A new boundary is
// ordered as"):
//
//  1. a native compaction with summary "" and a null firstKeptEntryId,
//     which Pi stores as the compaction's own id: the retain-none
//     checkpoint;
//  2. a MarkerType custom entry with data {windowId};
//  3. a hidden BootType custom message with details {windowId};
//  4. a hidden ContinuationType custom message with details {windowId}.
func Boundary(windowID string, m BoundaryMessages) ([]Draft, error) {
	if windowID == "" {
		return nil, errors.New("reset boundary needs a window id")
	}
	d := windowData(windowID)
	return []Draft{
		{Type: TypeCompaction, Summary: "", Details: d},
		{Type: TypeCustom, CustomType: MarkerType, Data: d},
		{Type: TypeCustomMessage, CustomType: BootType, Content: m.Boot, Display: false, Details: d},
		{Type: TypeCustomMessage, CustomType: ContinuationType, Content: m.Continuation, Display: false, Details: d},
	}, nil
}

// IsMarker reports whether e is a reset marker (either name).
func IsMarker(e *Entry) bool {
	return e.Type() == TypeCustom && (e.CustomType() == MarkerType || e.CustomType() == LegacyMarkerType)
}

// IsBoot reports whether e is a boot message (either name).
func IsBoot(e *Entry) bool {
	t := e.customTypeOf()
	return e.isCustomMessage() && (t == BootType || t == LegacyBootType)
}

// IsContinuation reports whether e is a boundary continuation message
// (either name).
func IsContinuation(e *Entry) bool {
	t := e.customTypeOf()
	return e.isCustomMessage() && (t == ContinuationType || t == LegacyContinuationType)
}

// IsSelfRetaining reports whether e is a compaction whose
// firstKeptEntryId is its own id: it keeps no entry from before it.
func IsSelfRetaining(e *Entry) bool {
	return e.Type() == TypeCompaction && e.ID() != "" && e.FirstKeptEntryID() == e.ID()
}

// IsTrustedCheckpoint reports whether e is a retain-none reset
// checkpoint: self-retaining with an empty summary. A summarising
// checkpoint (seed 002) is self-retaining but not a reset.
func IsTrustedCheckpoint(e *Entry) bool {
	return IsSelfRetaining(e) && e.Has("summary") && e.Summary() == ""
}

// CheckpointBacked reports whether the marker at path[i] directly
// follows a trusted checkpoint (seed 000: "a generic preceding compaction
// is not enough").
func CheckpointBacked(path []*Entry, i int) bool {
	return i > 0 && i < len(path) && IsMarker(path[i]) &&
		IsTrustedCheckpoint(path[i-1]) && path[i].ParentID() == path[i-1].ID()
}

// neutral reports whether e neither produces context nor is a reset
// artifact: labels, names, usage, model and thinking changes, other
// extensions' state, and system prompt patches. Such entries may sit
// between boundary artifacts without changing what the boundary means.
func neutral(e *Entry) bool {
	switch e.Type() {
	case TypeLabel, TypeSessionInfo, TypeUsage, TypeModelChange, TypeThinkingLevelChange:
		return true
	case TypeCustom:
		return !IsMarker(e)
	case TypeMessage:
		return e.Role() == "system"
	}
	return false
}

// ActiveWindow returns the window id of the latest reset on the branch:
// a marker's windowId, or the details.windowId of a later retain-none
// checkpoint (a compaction-time reset). It returns "" when the branch has
// no reset.
func ActiveWindow(path []*Entry) string {
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if IsMarker(e) {
			return e.WindowID()
		}
		if IsTrustedCheckpoint(e) && e.WindowID() != "" {
			return e.WindowID()
		}
	}
	return ""
}

// ActiveBoot returns the latest boot message on the branch whose
// details.windowId is windowID.
func ActiveBoot(path []*Entry, windowID string) (*Entry, bool) {
	i := lastIndex(path, func(e *Entry) bool { return IsBoot(e) && e.WindowID() == windowID })
	if i < 0 {
		return nil, false
	}
	return path[i], true
}

// Committed reports whether the reset boundary of windowID is committed
// on the branch (seed 000: "resetBoundaryCommitted validates a
// checkpoint-backed marker followed by its matching hidden boot and
// hidden continuation; later conversation does not undo that commit").
func Committed(path []*Entry, windowID string) bool { return CheckCommitted(path, windowID) == nil }

// CheckCommitted is Committed with the reason when it is not.
func CheckCommitted(path []*Entry, windowID string) error {
	if windowID == "" {
		return errors.New("no window id")
	}
	mi := lastIndex(path, func(e *Entry) bool { return IsMarker(e) && e.WindowID() == windowID })
	if mi < 0 {
		return fmt.Errorf("no reset marker for window %s", windowID)
	}
	if !CheckpointBacked(path, mi) {
		return fmt.Errorf("the marker for window %s does not directly follow a retain-none checkpoint", windowID)
	}
	next := func(from int) int {
		for i := from; i < len(path); i++ {
			if !neutral(path[i]) {
				return i
			}
		}
		return -1
	}
	bi := next(mi + 1)
	if bi < 0 || !IsBoot(path[bi]) || path[bi].Display() {
		return fmt.Errorf("the marker for window %s is not followed by a hidden boot", windowID)
	}
	if path[bi].WindowID() != windowID {
		return fmt.Errorf("the boot after the marker is for window %s, not %s", path[bi].WindowID(), windowID)
	}
	ci := next(bi + 1)
	if ci < 0 || !IsContinuation(path[ci]) || path[ci].Display() {
		return fmt.Errorf("the boot for window %s is not followed by a hidden continuation", windowID)
	}
	if w := path[ci].WindowID(); w != "" && w != windowID {
		return fmt.Errorf("the continuation after the boot is for window %s, not %s", w, windowID)
	}
	return nil
}
