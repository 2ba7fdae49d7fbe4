package session

import "encoding/json"

// CrossesReset reports whether a run of entries contains a reset: a
// reset marker or a retain-none checkpoint (which covers the
// compaction-time boundary, which has no marker).
func CrossesReset(entries []*Entry) bool {
	for _, e := range entries {
		if IsMarker(e) || IsTrustedCheckpoint(e) {
			return true
		}
	}
	return false
}

// SuppressTreeSummary reports whether /tree must not summarise the
// branch it leaves (seed 000: "/tree summary generation is suppressed
// with an empty summary when either branch crosses a reset, because the
// raw summary generator bypasses the provider projection"). oldPath and
// newPath are the branches (root first) ending at the old leaf and at the
// target; each is examined from just after their deepest common entry.
func SuppressTreeSummary(oldPath, newPath []*Entry) bool {
	n := 0
	for n < len(oldPath) && n < len(newPath) && oldPath[n].ID() == newPath[n].ID() {
		n++
	}
	return CrossesReset(oldPath[n:]) || CrossesReset(newPath[n:])
}

// SuppressedTreeResult is the session_before_tree result that suppresses
// the summary: an extension summary with empty text. Pi then generates
// nothing and, the text being empty, appends no branch_summary entry.
var SuppressedTreeResult = json.RawMessage(`{"summary":{"summary":""}}`)
