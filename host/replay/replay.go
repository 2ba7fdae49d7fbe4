package replay

import (
	"fmt"
	"strconv"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/rules"
)

// Settings are the host settings a replay assumes.
type Settings struct {
	// ContextWindow overrides the model table (0: from the model).
	ContextWindow int64
	// Reserve is Pi's compaction.reserveTokens (default 16384).
	Reserve int64
	// KeepRecent is Pi's compaction.keepRecentTokens (default 20000),
	// what a summarising compaction keeps of the recent context.
	KeepRecent int64
	// AutoCompaction is Pi's compaction.enabled (default true).
	AutoCompaction bool
}

// DefaultSettings are Pi 1.6's defaults.
func DefaultSettings() Settings {
	return Settings{Reserve: 16384, KeepRecent: 20000, AutoCompaction: true}
}

// Config is one setting to replay under: a compiled policy with its
// params, and the host settings.
type Config struct {
	Label    string // how reports name the setting ("warning_runway=8192")
	Engine   *engine.Engine
	Settings Settings
	// MaxDecisions bounds the decisions kept per session (default 10000);
	// more are counted in Report.DecisionsDropped.
	MaxDecisions int
	// Points keeps the context of every request for plots and the
	// JSON's series.
	Points bool
	// ObeysWithin (--assume-obeys-within) assumes the agent closes out
	// this many model turns after a window's first warning (0: the
	// record as it is).
	ObeysWithin int
	// Series puts the points in the report's JSON (Points implied).
	Series bool
}

// Replayer replays sessions under one Config. It is not safe for
// concurrent use; give each goroutine its own.
type Replayer struct {
	cfg   Config
	bs    *builders
	tools map[string]bool
	// closeOut is the tool an agent calls to close out: the policy's
	// first declared tool ("" when it declares none).
	closeOut string
	// kinds are the decision kinds the policy declares; undeclared says
	// why a policy that injects or resets counts none (rules.UndeclaredKinds).
	kinds      *rules.KindIndex
	undeclared string
}

// New returns a replayer.
func New(cfg Config) *Replayer {
	if cfg.Series {
		cfg.Points = true
	}
	if cfg.MaxDecisions <= 0 {
		cfg.MaxDecisions = 10000
	}
	p := cfg.Engine.Policy()
	rp := &Replayer{cfg: cfg, bs: newBuilders(), tools: map[string]bool{}, kinds: rules.NewKindIndex(p)}
	if d := rules.UndeclaredKinds(p); len(d) > 0 {
		rp.undeclared = fmt.Sprintf("policy %s injects messages or resets but declares no decision kind (kind = reminder, warning, checkpoint, reset or hard_reserve on a message or rule): no reminder, warning, checkpoint, reset or hard reserve is counted or marked", p.Name)
	}
	for i, t := range cfg.Engine.Policy().Tools {
		rp.tools[t.Name] = true
		if i == 0 {
			rp.closeOut = t.Name
		}
	}
	return rp
}

// PolicyTools are the tools the policy declares (their arguments are
// worth keeping when reading files).
func (rp *Replayer) PolicyTools() map[string]bool { return rp.tools }

// diverge marks the turn the replay leaves the record.
func (r *run) diverge() {
	if !r.projected {
		r.projected = true
		r.rep.DivergedAt = max(r.turn, 1)
	}
	r.kind = Projected
}

// resetAhead reports whether the record makes a reset here: a reset
// marker before the next model turn or prompt.
func (r *run) resetAhead() bool {
	for _, e := range r.path[r.pos:] {
		if e.IsMarker() {
			return true
		}
		if e.Type == session.TypeMessage && (e.Role == "assistant" || e.Role == "user") && e != r.path[r.pos] {
			return false
		}
	}
	return false
}

func (r *run) newWindow() {
	r.kind = Projected
	r.windowN++
	r.window = "r" + strconv.Itoa(r.windowN)
	r.tokens = r.boot
	r.reset, r.userAfter = true, false
	r.warnedTurn, r.obeyed = 0, false
}

// event builds, decides and records one event, then carries out the
// mechanics its effects imply.
func (r *run) event(k eventKind, own ...fact) {
	ev, err := r.build(k, own...)
	if err != nil {
		r.reject(k, err)
		return
	}
	r.rep.Events++
	if r.tokens > r.rep.PeakTokens {
		r.rep.PeakTokens, r.rep.PeakProjected, r.rep.PeakKind = r.tokens, r.projected, r.kind
	}
	d, err := r.es.Decide(ev)
	if err != nil {
		r.reject(k, err)
		return
	}
	if len(d.Rules) == 0 {
		return
	}
	r.record(d)
	if r.depth > 4 {
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	// Copy what the effects ask before a nested event reuses the
	// session's buffers.
	type todo struct {
		name    string
		attempt int64
	}
	var work [4]todo
	todos := work[:0]
	for _, e := range d.Effects {
		var attempt int64
		if v, ok := e.Arg("attempt"); ok {
			if f, ok := v.(float64); ok {
				attempt = int64(f)
			}
		}
		todos = append(todos, todo{e.Name, attempt})
	}
	for _, t := range todos {
		r.effect(t.name, t.attempt)
	}
}

func (r *run) effect(name string, attempt int64) {
	s := r.rp.cfg.Settings
	switch name {
	case "commit_reset", "provide_reset":
		if name == "provide_reset" && !r.inCompact {
			return
		}
		r.rep.Resets++
		if r.projected {
			r.rep.ProjectedResets++
		}
		if name == "commit_reset" && !r.projected && r.resetAhead() {
			r.agreed = true
			r.windowN++
			r.window = "w" + strconv.Itoa(r.windowN)
			r.reset, r.userAfter = true, false
			return
		}
		r.diverge()
		if r.inCompact {
			r.replaced = true
		}
		r.newWindow()
	case "checkpoint":
		if r.projected {
			r.rep.ProjectedCheckpoints++
		}
		r.diverge()
		r.rep.Checkpoints++
		r.tokens = min(r.tokens, s.KeepRecent) + r.boot
		r.event(evSummaryDone, fb("ok", true), fn("attempt", attempt))
	case "compact":
		r.rep.Compactions++
		r.inCompact, r.cancelled, r.replaced = true, false, false
		r.event(evBeforeCompact, fs("reason", "manual"))
		r.inCompact = false
		if r.cancelled {
			return
		}
		r.diverge()
		if !r.replaced {
			r.tokens = min(r.tokens, s.KeepRecent) + r.boot
		}
		r.event(evCompactDone, fs("reason", "manual"), fn("attempt", attempt))
		r.event(evAttemptComplete, fn("attempt", attempt))
	case "cancel_compaction":
		if !r.inCompact {
			return
		}
		r.rep.CancelledCompactions++
		r.cancelled = true
		// The recorded compaction did not happen: the window keeps its
		// size and the record's drop no longer describes it.
		r.diverge()
	}
}

func (r *run) reject(k eventKind, err error) {
	if len(r.rep.Rejected) < 1000 {
		r.rep.Rejected = append(r.rep.Rejected, Rejected{Turn: r.turn, Event: k.String(), Error: err.Error()})
	}
}

// kindsOf are a decision's kinds as the policy declares them.
func (rp *Replayer) kindsOf(d *engine.Decision) rules.KindSet {
	return decisionKinds(rp.kinds, d.Rules, d.Effects)
}

// decisionKinds are the declared kinds of the rules that fired and of the
// messages they injected.
func decisionKinds(x *rules.KindIndex, fired []string, effects []engine.Effect) rules.KindSet {
	var set rules.KindSet
	for _, name := range fired {
		set |= x.Rule(name)
	}
	for _, e := range effects {
		if e.Name != "inject" {
			continue
		}
		if m, ok := e.Arg("message"); ok {
			if s, ok := m.(string); ok {
				set |= x.Message(s)
			}
		}
	}
	return set
}

// record keeps a decision and notes reminders, warnings and hard
// reserves, by the kinds the policy declares (kindsOf).
func (r *run) record(d *engine.Decision) {
	mark := Mark{Turn: r.turn, Tokens: r.tokens, Runway: r.ctxWindow - r.tokens - r.rp.cfg.Settings.Reserve, Projected: r.projected, Kind: r.kind}
	kinds := r.rp.kindsOf(d)
	if kinds.Has(rules.KindWarning) {
		if r.warnedTurn == 0 {
			r.warnedTurn = max(r.turn, 1)
		}
		if r.rep.FirstWarning == nil {
			mm := mark
			r.rep.FirstWarning = &mm
		}
		if len(r.rep.Warnings) < 1000 {
			r.rep.Warnings = append(r.rep.Warnings, mark)
		}
	}
	if kinds.Has(rules.KindReminder) && r.rep.FirstReminder == nil {
		mm := mark
		r.rep.FirstReminder = &mm
	}
	if kinds.Has(rules.KindHardReserve) && r.rep.FirstHardReserve == nil {
		mm := mark
		r.rep.FirstHardReserve = &mm
	}
	if len(r.rep.Decisions) >= r.rp.cfg.MaxDecisions {
		r.rep.DecisionsDropped++
		return
	}
	dec := Decision{Turn: r.turn, Event: d.Event, Tokens: r.tokens, Projected: r.projected, Kind: r.kind,
		Rules: append([]string(nil), d.Rules...), Effects: make([]map[string]any, len(d.Effects))}
	for _, k := range kinds.Kinds() {
		dec.Kinds = append(dec.Kinds, string(k))
	}
	for i, e := range d.Effects {
		m := make(map[string]any, len(e.Args)+1)
		m["effect"] = e.Name
		for _, a := range e.Args {
			m[a.Name] = a.Value
		}
		dec.Effects[i] = m
	}
	r.rep.Decisions = append(r.rep.Decisions, dec)
}

// String names a report's session for humans: its file and, when the
// session has one, its display name.
func (rep *Report) String() string {
	if rep.Name != "" {
		return fmt.Sprintf("%s (%s)", rep.File, rep.Name)
	}
	return rep.File
}
