package session

import (
	"errors"
	"fmt"
)

// TailStatus is what InspectTail found.
type TailStatus int

const (
	// TailNoMarker: the branch has no reset marker (for the window asked
	// about); there is nothing to repair.
	TailNoMarker TailStatus = iota + 1
	// TailComplete: marker, boot and continuation are in place and nothing
	// else that matters follows.
	TailComplete
	// TailRepairable: the boot and continuation, or the continuation
	// alone, are missing and may be appended.
	TailRepairable
	// TailRefused: the suffix is not safe to repair; Reason says why.
	TailRefused
)

func (s TailStatus) String() string {
	switch s {
	case TailNoMarker:
		return "no-marker"
	case TailComplete:
		return "complete"
	case TailRepairable:
		return "repairable"
	case TailRefused:
		return "refused"
	}
	return "invalid"
}

// Artifact names a boundary message.
type Artifact string

const (
	ArtifactBoot         Artifact = "boot"
	ArtifactContinuation Artifact = "continuation"
)

// TailReport is the result of InspectTail.
type TailReport struct {
	Status   TailStatus
	WindowID string
	Marker   *Entry
	// Checkpoint: the marker directly follows a retain-none checkpoint.
	// A marker-only (legacy) tail is still repairable, but repair never
	// makes it checkpoint-backed.
	Checkpoint         bool
	Boot, Continuation *Entry
	// Missing lists, in append order, the artifacts a repair appends.
	Missing []Artifact
	// Reason says why a tail was refused.
	Reason string
}

func refused(r TailReport, format string, args ...any) TailReport {
	r.Status = TailRefused
	r.Reason = fmt.Sprintf(format, args...)
	r.Missing = nil
	return r
}

// InspectTail asks whether the suffix of the branch from a reset marker
// is safe to repair (seed 000: inspectResetTail "refusing later
// conversation, foreign messages, later markers or misordered/duplicate
// artifacts"). windowID names the marker; empty means the latest marker
// on the branch.
//
// Entries that neither produce context nor are reset artifacts (labels,
// names, usage, model and thinking changes, other extensions' custom
// entries, system prompt patches) are ignored. Any user, assistant, tool
// result or other conversation message after the marker refuses, even
// after a complete boundary: confirmation of a commit is Committed's
// job, not this one's.
func InspectTail(path []*Entry, windowID string) TailReport {
	var mi int
	if windowID == "" {
		mi = lastIndex(path, IsMarker)
	} else {
		mi = lastIndex(path, func(e *Entry) bool { return IsMarker(e) && e.WindowID() == windowID })
	}
	if mi < 0 {
		return TailReport{Status: TailNoMarker, WindowID: windowID}
	}
	m := path[mi]
	r := TailReport{WindowID: m.WindowID(), Marker: m, Checkpoint: CheckpointBacked(path, mi)}
	if r.WindowID == "" {
		return refused(r, "the reset marker %s has no window id", m.ID())
	}
	for _, e := range path[:mi] {
		switch {
		case IsMarker(e) && e.WindowID() == r.WindowID:
			return refused(r, "duplicate marker for window %s (%s)", r.WindowID, e.ID())
		case (IsBoot(e) || IsContinuation(e)) && e.WindowID() == r.WindowID:
			return refused(r, "misordered: %s for window %s comes before its marker", e.customTypeOf(), r.WindowID)
		}
	}
	for _, e := range path[mi+1:] {
		switch {
		case IsMarker(e):
			return refused(r, "later marker %s (window %s)", e.ID(), e.WindowID())
		case IsBoot(e):
			if e.WindowID() != r.WindowID {
				return refused(r, "foreign boot %s for window %s", e.ID(), e.WindowID())
			}
			if r.Boot != nil {
				return refused(r, "duplicate boot %s", e.ID())
			}
			r.Boot = e
		case IsContinuation(e):
			if w := e.WindowID(); w != "" && w != r.WindowID {
				return refused(r, "foreign continuation %s for window %s", e.ID(), w)
			}
			if r.Continuation != nil {
				return refused(r, "duplicate continuation %s", e.ID())
			}
			if r.Boot == nil {
				return refused(r, "misordered: continuation %s before any boot", e.ID())
			}
			r.Continuation = e
		case neutral(e):
		case e.Type() == TypeMessage:
			return refused(r, "later conversation: %s message %s", e.Role(), e.ID())
		case e.Type() == TypeCustomMessage:
			return refused(r, "foreign message %s (%s)", e.ID(), e.CustomType())
		default:
			return refused(r, "foreign %s entry %s", e.Type(), e.ID())
		}
	}
	if r.Boot == nil {
		r.Missing = append(r.Missing, ArtifactBoot)
	}
	if r.Continuation == nil {
		r.Missing = append(r.Missing, ArtifactContinuation)
	}
	if len(r.Missing) == 0 {
		r.Status = TailComplete
	} else {
		r.Status = TailRepairable
	}
	return r
}

// Repair returns the drafts that complete a repairable tail: the missing
// boot and/or continuation for the marker's window, to append at the
// leaf. It never adds a compaction, so it neither moves a boundary nor
// turns an arbitrary compaction into a retain-none checkpoint. A
// complete tail needs nothing; any other status is an error.
func Repair(r TailReport, m BoundaryMessages) ([]Draft, error) {
	switch r.Status {
	case TailComplete:
		return nil, nil
	case TailRepairable:
	case TailRefused:
		return nil, errors.New("tail not repairable: " + r.Reason)
	default:
		return nil, errors.New("no reset marker to repair")
	}
	d := windowData(r.WindowID)
	var out []Draft
	for _, a := range r.Missing {
		switch a {
		case ArtifactBoot:
			out = append(out, Draft{Type: TypeCustomMessage, CustomType: BootType, Content: m.Boot, Details: d})
		case ArtifactContinuation:
			out = append(out, Draft{Type: TypeCustomMessage, CustomType: ContinuationType, Content: m.Continuation, Details: d})
		}
	}
	return out, nil
}
