package replay

// Report is what a replay of one session found.
type Report struct {
	Session string `json:"session"` // the session id
	File    string `json:"file"`
	Name    string `json:"name,omitempty"` // the session's display name (session_info)
	Leaf    string `json:"leaf,omitempty"` // the leaf of the replayed branch
	Version int    `json:"version"`        // the format version as written
	Label   string `json:"setting,omitempty"`
	Policy  string `json:"policy"`

	Model         string `json:"model,omitempty"`
	ContextWindow int64  `json:"context_window"`
	// WindowFrom says where the context window came from: "flag",
	// "model" (the built-in table) or "default" (a model it does not know).
	WindowFrom string `json:"context_window_from"`

	Events int `json:"events"`
	Turns  int `json:"turns"`
	// PeakTokens is the highest context of any event replayed;
	// PeakProjected says whether that figure is projected.
	PeakTokens    int64 `json:"peak_tokens"`
	PeakProjected bool  `json:"peak_projected"`
	// PeakKind says how PeakTokens was found: measured, estimated or
	// projected.
	PeakKind Kind `json:"peak_tokens_kind"`
	// RecordedPeakTokens is the highest context the record itself shows,
	// as Pi estimates it; RecordedPeakKind says whether it is a provider's
	// measurement or Pi's estimate.
	RecordedPeakTokens int64 `json:"recorded_peak_tokens"`
	RecordedPeakKind   Kind  `json:"recorded_peak_tokens_kind"`
	// Stated are the prompt sizes providers stated in overflow errors
	// (measured figures), the first 1,000.
	Stated []StatedSize `json:"stated_by_provider,omitempty"`
	// DivergedAt is the turn of the first decision that changed the
	// window (0: none); figures of later turns are projected.
	DivergedAt int `json:"diverged_at_turn,omitempty"`

	FirstReminder    *Mark  `json:"first_reminder,omitempty"`
	FirstWarning     *Mark  `json:"first_warning,omitempty"`
	FirstHardReserve *Mark  `json:"first_hard_reserve,omitempty"`
	Warnings         []Mark `json:"warnings,omitempty"` // every warning, with its runway

	// What the policy would do.
	Resets      int `json:"resets"`
	Checkpoints int `json:"checkpoints"`
	// ProjectedResets and ProjectedCheckpoints are those of Resets and
	// Checkpoints made after the replay left the record.
	ProjectedResets      int `json:"resets_projected,omitempty"`
	ProjectedCheckpoints int `json:"checkpoints_projected,omitempty"`
	Compactions          int `json:"compactions_started"`
	CancelledCompactions int `json:"compactions_cancelled"`
	// What Pi would do on the projected window after divergence.
	ProjectedCompactions int `json:"projected_pi_compactions,omitempty"`
	// What really happened in the record.
	RecordedCompactions int `json:"recorded_compactions"`
	RecordedResets      int `json:"recorded_resets"`
	// Recorded compactions and resets after divergence, not replayed.
	NotReplayed int `json:"recorded_not_replayed,omitempty"`
	// OverflowsNotReplayed are the record's overflow errors after
	// divergence whose projected request fits the window: they answered
	// a window that no longer exists, and are not replayed.
	OverflowsNotReplayed int `json:"recorded_overflows_not_replayed,omitempty"`
	// AssumedCloseOuts are the close-outs --assume-obeys-within made.
	AssumedCloseOuts int `json:"assumed_close_outs,omitempty"`
	// Notes say what the replay cannot know or had to assume: a window
	// the record's context exceeds, a window the provider stated, the
	// agent's answer to a warning it never saw.
	Notes []string `json:"notes,omitempty"`
	// KindsUndeclared says the policy injects or resets but declares no
	// decision kind: no reminder, warning, checkpoint, reset or hard
	// reserve is counted (a note says so too).
	KindsUndeclared bool `json:"kinds_undeclared,omitempty"`

	Decisions        []Decision `json:"decisions"`
	DecisionsDropped int        `json:"decisions_dropped,omitempty"`
	Rejected         []Rejected `json:"rejected,omitempty"`
	// Errors are the file's problems: lines not read, with their numbers.
	Errors  []string       `json:"errors"`
	Skipped map[string]int `json:"skipped_entry_types,omitempty"`
	Joined  int            `json:"joined_lines,omitempty"`

	// Points are the context of every request, for plots.
	Points []Point `json:"-"`
	// Series are the same points in the JSON (Config.Series, --series),
	// with the setting's thresholds for this session's window.
	Series     []Point     `json:"series,omitempty"`
	Thresholds []Threshold `json:"thresholds,omitempty"`
}

// Mark is a turn where something happened, with the context then.
type Mark struct {
	Turn   int   `json:"turn"`
	Tokens int64 `json:"tokens"`
	// Runway is what was left above the reserve: context window − tokens
	// − reserve.
	Runway    int64 `json:"runway"`
	Projected bool  `json:"projected"`
	Kind      Kind  `json:"kind"` // of Tokens and Runway
}

// Decision is one event on which a rule fired.
type Decision struct {
	Turn      int              `json:"turn"`
	Event     string           `json:"event"`
	Tokens    int64            `json:"tokens"`
	Projected bool             `json:"projected"`
	Kind      Kind             `json:"kind"` // of Tokens
	Rules     []string         `json:"rules"`
	Effects   []map[string]any `json:"effects"`
	// Kinds are what the decision means, as the policy declares it
	// (rules.DecisionKind: reminder, warning, checkpoint, reset,
	// hard_reserve); none for a routine decision.
	Kinds []string `json:"kinds,omitempty"`
}

// Rejected is an event the policy rejected (an expression that could not
// be evaluated); the state stays as it was.
type Rejected struct {
	Turn  int    `json:"turn"`
	Event string `json:"event"`
	Error string `json:"error"`
}

// Point is the context of one request: what the host reports as the
// request is made (Tokens, of Kind), and what the provider then measured
// the request to be (Measured: the answer's usage less its output, or the
// size an overflow error states; 0 when the record has no measurement).
type Point struct {
	Turn     int   `json:"turn"`
	Tokens   int64 `json:"tokens"`
	Kind     Kind  `json:"kind"`
	Measured int64 `json:"measured,omitempty"`
	// Recorded is Pi's estimate of the record's own context at the
	// request (equal to Tokens until the replay leaves the record), of
	// RecordedKind.
	Recorded     int64 `json:"recorded"`
	RecordedKind Kind  `json:"recorded_kind"`
}

// Projected reports a point after the replay left the record.
func (p Point) Projected() bool { return p.Kind == Projected }

// Total sums reports of one setting.
type Total struct {
	Sessions, Events, Turns                       int
	PeakTokens                                    int64
	PeakProjected                                 bool
	PeakKind                                      Kind
	OverflowsNotReplayed                          int
	MinWarningRunwayKind                          Kind
	Reminded, Warned, HardReserve, Diverged       int // sessions
	Resets, Checkpoints, Compactions, Cancelled   int
	ProjectedCompactions                          int
	RecordedCompactions, RecordedResets, Rejected int
	Errors                                        int
	// Of the sessions and counts above, those from projected turns.
	ProjectedReminded, ProjectedWarned              int
	ProjectedHardReserve                            int
	ProjectedResets, ProjectedCheckpoints           int
	MinWarningRunway                                int64
	MinWarningRunwayProjected, HaveMinWarningRunway bool
}

// Add adds one report.
func (t *Total) Add(r *Report) {
	t.Sessions++
	t.Events += r.Events
	t.Turns += r.Turns
	if r.PeakTokens > t.PeakTokens {
		t.PeakTokens, t.PeakProjected, t.PeakKind = r.PeakTokens, r.PeakProjected, r.PeakKind
	}
	count := func(m *Mark, n, projected *int) {
		if m != nil {
			*n++
			if m.Projected {
				*projected++
			}
		}
	}
	count(r.FirstReminder, &t.Reminded, &t.ProjectedReminded)
	count(r.FirstWarning, &t.Warned, &t.ProjectedWarned)
	count(r.FirstHardReserve, &t.HardReserve, &t.ProjectedHardReserve)
	t.ProjectedResets += r.ProjectedResets
	t.ProjectedCheckpoints += r.ProjectedCheckpoints
	if r.DivergedAt > 0 {
		t.Diverged++
	}
	t.Resets += r.Resets
	t.Checkpoints += r.Checkpoints
	t.Compactions += r.Compactions
	t.Cancelled += r.CancelledCompactions
	t.ProjectedCompactions += r.ProjectedCompactions
	t.RecordedCompactions += r.RecordedCompactions
	t.RecordedResets += r.RecordedResets
	t.Rejected += len(r.Rejected)
	t.Errors += len(r.Errors)
	t.OverflowsNotReplayed += r.OverflowsNotReplayed
	for _, w := range r.Warnings {
		if !t.HaveMinWarningRunway || w.Runway < t.MinWarningRunway {
			t.MinWarningRunway, t.MinWarningRunwayProjected, t.HaveMinWarningRunway = w.Runway, w.Projected, true
			t.MinWarningRunwayKind = w.Kind
		}
	}
}
