package verify

import (
	"slices"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules"
)

// consistent rejects fact combinations a host following the contract
// never sends, so a counterexample is a session that can happen. The Pi
// host (host/pi/src/hooks.ts onTurnEnd) gives a turn_end an error kind
// exactly when its outcome is an error, and flags a synthetic abort only
// on an aborted turn; a summary_done (host/pi/src/effects.ts) is aborted
// or already compact only when it is not ok, and never both at once.
func consistent(facts map[string]any) bool {
	if facts["event"] == "summary_done" {
		ok, hasOK := facts["ok"].(bool)
		aborted, _ := facts["aborted"].(bool)
		already, _ := facts["already_compact"].(bool)
		if !hasOK {
			ok = true
		}
		return !(ok && (aborted || already)) && !(aborted && already)
	}
	if facts["event"] != "turn_end" {
		return true
	}
	outcome, _ := facts["outcome"].(string)
	if outcome == "" {
		outcome = "completed"
	}
	errKind, _ := facts["error"].(string)
	if (outcome == "error") != (errKind != "") {
		return false
	}
	if synthetic, _ := facts["synthetic_abort"].(bool); synthetic && outcome != "aborted" {
		return false
	}
	return true
}

// echoes are the attempts the simulated host may echo, as the contract
// says a host does: compact's attempt comes back in compact_done,
// compact_failed, attempt_complete and attempt_error, checkpoint's in
// summary_done. Per effect, the last attempt it carried (noAttempt
// before the first); the
// callbacks echo it, or one before it (a late callback of an earlier
// attempt). Keeping the earlier attempts themselves would multiply the
// states by the ways they were numbered, for no callback the policy
// tells apart from "not the last".
type echoes [2]float64

// noAttempt: the host was given no such effect yet, so it echoes none.
const noAttempt = -1

var noEchoes = echoes{noAttempt, noAttempt}

// The effects whose attempts are echoed, and where echoes keeps them.
const (
	echoCompact    = 0
	echoCheckpoint = 1
)

// echoOf is, per event with an attempt fact, the effect it echoes and
// whether the event also comes with attempt 0 (Pi's own compaction). A
// summary comes with 0 only for a checkpoint that carried no attempt, so
// 0 is never a summary's stale attempt; noStale0 says so.
var echoOf = map[string]struct {
	at             int
	zero, noStale0 bool
}{
	"compact_done":     {echoCompact, true, false},
	"compact_failed":   {echoCompact, true, false},
	"attempt_complete": {echoCompact, false, false},
	"attempt_error":    {echoCompact, false, false},
	"summary_done":     {echoCheckpoint, false, true},
}

// after is the echoes once a decision's effects were carried out.
func (h echoes) after(effects []engine.Effect) echoes {
	for _, e := range effects {
		at := echoCompact
		switch e.Name {
		case "compact":
		case "checkpoint":
			at = echoCheckpoint
		default:
			continue
		}
		v, _ := e.Arg("attempt")
		h[at], _ = toFloat(v)
	}
	return h
}

// ids are the values an event's attempt fact takes: the attempts the
// host may echo (ok is false for an event that echoes none, whose ids
// are the state's); bare: some rule of the policy emits the echoed effect
// without an attempt, which the host then answers with 0.
func (h echoes) ids(event string, bare *[2]bool) ([]any, bool) {
	e, ok := echoOf[event]
	if !ok {
		return nil, false
	}
	var out []float64
	if e.zero || bare[e.at] {
		out = append(out, 0)
	}
	// The one before is last-1, 0 before the first attempt: states are
	// keyed by ids relative to the newest, so the first attempt's state
	// stands for every later one's, and its stale callback must be tried.
	last := h[e.at]
	for _, v := range []float64{last - 1, last} {
		if v >= 0 && !(v == 0 && v < last && e.noStale0 && !bare[e.at]) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return toAny(out), true
}

// key writes the echoes into a state's key, relative to the newest id
// the state holds.
func (h echoes) key(b []byte, maxID float64) []byte {
	for _, v := range h {
		if v == noAttempt {
			b = append(b, '-')
		} else {
			b = append(b, relID(v, maxID)...)
		}
		b = append(b, ',')
	}
	return b
}

// bareEffects: per echoed effect, whether some rule emits it without an
// attempt.
func bareEffects(p *rules.Policy) *[2]bool {
	var out [2]bool
	for _, r := range p.Rules {
		for _, e := range r.Effects {
			at := echoCompact
			switch e.Name {
			case "compact":
			case "checkpoint":
				at = echoCheckpoint
			default:
				continue
			}
			if _, ok := e.Args["attempt"]; !ok {
				out[at] = true
			}
		}
	}
	return &out
}

// echoFact is the fact a callback echoes an effect's attempt in.
const echoFact = "attempt"

// echoed: key ("compact_done.attempt") is an attempt fact the host echoes.
func echoed(key string) bool {
	ev, f, _ := strings.Cut(key, ".")
	_, ok := echoOf[ev]
	return ok && f == echoFact
}

// echoHow says how an echoed attempt fact is sampled.
func echoHow(key string) string {
	ev, _, _ := strings.Cut(key, ".")
	e := echoOf[ev]
	effect := "compact"
	if e.at == echoCheckpoint {
		effect = "checkpoint"
	}
	how := "the attempt the last " + effect + " effect carried, as the host echoes it, and one before it (a late callback)"
	if e.zero {
		how += ", and 0 (Pi's own compaction)"
	}
	return how
}
