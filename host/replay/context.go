package replay

import (
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// Kind says how a token figure was found.
type Kind string

const (
	// Measured: a provider's figure (the usage of an answer, or the
	// prompt size an overflow error states), nothing added.
	Measured Kind = "measured"
	// Estimated: Pi's estimate (host/estimate) of what the record holds:
	// a measured usage plus Pi's estimate of the messages after it, or an
	// estimate of the whole context.
	Estimated Kind = "estimated"
	// Projected: after the replay left the record, the window the policy
	// would have made: a fresh window's size plus the record's growth.
	Projected Kind = "projected"
)

// piContext is Pi 1.6's estimate of the recorded context as the branch
// is followed entry by entry, the figure Pi's getContextUsage reports
// (estimateProjectedContextTokens): the latest valid usage since the
// latest compaction plus estimateTokens of every message after it, or,
// with no such usage, the current system message and every other message
// of the context estimated.
type piContext struct {
	usage    int64 // calculateContextTokens of the latest valid answer
	have     bool  // that usage counts (it follows the latest compaction)
	trailing int64 // estimates of the messages after it
	all      int64 // estimates of every message of the context but system ones
	system   int64 // the estimate of the current system message
	scanned  int   // entries stepped over looking for kept ranges
}

func (c *piContext) tokens() (int64, Kind) {
	if c.have {
		if c.trailing == 0 {
			return c.usage, Measured
		}
		return c.usage + c.trailing, Estimated
	}
	return c.system + c.all, Estimated
}

// message adds a message that is not an answer with valid usage.
func (c *piContext) message(e *sessionfile.Entry) {
	est := int64(e.Est)
	c.trailing += est
	if e.IsSystem() {
		// Pi counts the current system prompt once; the latest stands
		// for it (Pi merges system messages; one is the common case).
		c.system = est
		return
	}
	c.all += est
}

// answer is an assistant message.
func (c *piContext) answer(e *sessionfile.Entry) {
	c.all += int64(e.Est)
	if !e.ValidUsage() {
		c.trailing += int64(e.Est)
		return
	}
	c.usage, c.have, c.trailing = e.ContextTokens(), true, 0
}

// measure takes a provider's own figure for the whole context (the
// prompt size an overflow error states) as a usage.
func (c *piContext) measure(n int64) {
	c.usage, c.have, c.trailing = n, true, 0
}

// maxKeptScan bounds the walks back to compactions' first kept entries,
// in entries stepped over, for one session: kept ranges are short (Pi
// keeps about keepRecentTokens), but a file can name a first kept entry
// that is not there at every compaction. Past the budget a kept range
// counts as not found (Pi would keep nothing either way if it were not).
const maxKeptScan = 1 << 22

// compact is a compaction at path[pos]: the context becomes its summary
// (and its system message, if it carries one), the entries it keeps (from
// its first kept entry, system messages excluded), then what follows.
// Usage from before it no longer counts.
func (c *piContext) compact(path []*sessionfile.Entry, pos int) {
	e := path[pos]
	x := e.Extra()
	c.have, c.usage, c.trailing = false, 0, 0
	c.system = x.SystemEst
	c.all = int64(e.Est)
	if x.FirstKeptEntryID == "" || x.FirstKeptEntryID == e.ID {
		return
	}
	var kept int64
	for i := pos - 1; i >= 0 && c.scanned < maxKeptScan; i-- {
		c.scanned++
		p := path[i]
		if !p.IsSystem() && p.Type != session.TypeCompaction {
			kept += int64(p.Est)
		}
		if p.ID == x.FirstKeptEntryID {
			c.all += kept
			return
		}
	}
	// The first kept entry is not on the branch: Pi keeps nothing.
}
