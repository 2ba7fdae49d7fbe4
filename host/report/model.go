package report

import (
	"encoding/json"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// Doc is the whole page's data. Sections a run did not produce are nil
// and the page says so.
type Doc struct {
	Header Header `json:"header"`
	// Policy is the policy as `policies --json` describes it, plus its
	// surface (see PolicySection).
	Policy *PolicySection `json:"policy"`
	// Diagrams are the state diagrams, one per enum slot and the product
	// of the slots where it is small enough to read.
	Diagrams []Diagram `json:"diagrams"`
	// Verify is one object as `verify --json` prints it.
	Verify json.RawMessage `json:"verify,omitempty"`
	// VerifyError says why there is no verify section.
	VerifyError string `json:"verify_error,omitempty"`
	// Tests is the object `test --json --coverage` prints.
	Tests json.RawMessage `json:"tests,omitempty"`
	// TestFiles are the test files that were run.
	TestFiles []string `json:"test_files"`
	// Replay is present when sessions were given.
	Replay *ReplaySection `json:"replay,omitempty"`
}

// Header says when, with which binary and on which inputs the page was
// made.
type Header struct {
	Generated string   `json:"generated"` // RFC 3339, the host's clock
	Version   string   `json:"version"`   // as `resetpolicy version` prints it
	Command   []string `json:"command"`   // the arguments the page was made with
	Inputs    []string `json:"inputs"`    // policy and test files, session paths
	// InForce is the resolution's header line: which policy file and which
	// param values, with their origins, the page was made with.
	InForce string `json:"in_force"`
}

// PolicySection is the policy: what `policies --json` prints for it
// (name, files, params with values and origins, rules with their origin in
// a composed policy) and what the model and the user see of it.
type PolicySection struct {
	Summary json.RawMessage `json:"summary"`
	// InForce is the resolution as the CLI's --json prints it
	// (policy_in_force): the source, and each param's origin and the
	// user values the project shadows.
	InForce  json.RawMessage `json:"in_force,omitempty"`
	Sources  []string        `json:"sources"`
	Uses     string          `json:"uses,omitempty"`
	Disabled []string        `json:"disabled,omitempty"`
	Messages []Named         `json:"messages"`
	Tools    []Named         `json:"tools"`
	Commands []Named         `json:"commands"`
	// Rules is every rule with what a reader needs to see behind a
	// diagram edge: its event, the states it fires from, its guard and
	// its effects.
	Rules []Rule `json:"rules"`
}

// Named is a message, tool or command of the policy's surface.
type Named struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Text        string `json:"text,omitempty"`
}

// Rule is one rule as the diagram's click shows it.
type Rule struct {
	Name    string   `json:"name"`
	Group   string   `json:"group"`
	On      []string `json:"on"`
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
	When    string   `json:"when,omitempty"`
	Effects []string `json:"effects,omitempty"`
	Origin  string   `json:"origin,omitempty"`
	Line    int      `json:"line"`
	File    string   `json:"file"`
}

// Diagram is one state diagram, as graph draws it from verify's
// exploration: its drawing and, for the click, the rules behind each
// edge.
type Diagram struct {
	Title string        `json:"title"`
	SVG   string        `json:"svg,omitempty"`
	Error string        `json:"error,omitempty"`
	Nodes []DiagramNode `json:"nodes"`
	Edges []DiagramEdge `json:"edges"`
}

// DiagramNode is one state ("*" stands for every state).
type DiagramNode struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// DiagramEdge is what the engine does from one state to another (or to
// itself, for rules that fire without moving), by event.
type DiagramEdge struct {
	From  string        `json:"from"`
	To    string        `json:"to"`
	Moves []DiagramMove `json:"moves"`
}

// DiagramMove is one event of an edge and the rules that fired on it.
type DiagramMove struct {
	Event string   `json:"event"`
	Rules []string `json:"rules"`
}

// ReplaySection is what the policy would have done on the sessions.
type ReplaySection struct {
	// Settings are the compared settings' labels, one column each.
	Settings []string `json:"settings"`
	// Colours are the settings' colours in the charts, one each.
	Colours []string `json:"colours"`
	// Corpus are the figures over every session, one per setting.
	Corpus []Corpus `json:"corpus"`
	// Sessions lists every session; those with Charted set carry their
	// chart and every setting's full `replay --json` report.
	Sessions []Session `json:"sessions"`
	// Charted is how many sessions carry a chart (at most MaxCharts).
	Charted int `json:"charted"`
	// First is the row of the chart a reader sees first: the most telling
	// session (the one the settings differ most on).
	First int `json:"first_chart"`
	// Failed are files that could not be replayed, with the reason.
	Failed []string `json:"failed,omitempty"`
	// Caveats say what a replay cannot know, where it matters.
	Caveats []string `json:"caveats,omitempty"`
}

// Corpus is one setting's figures over every session.
type Corpus struct {
	Setting     string `json:"setting"`
	Sessions    int    `json:"sessions"`
	Turns       int    `json:"turns"`
	Events      int    `json:"events"`
	Resets      int    `json:"resets"`
	Checkpoints int    `json:"checkpoints"`
	Warned      int    `json:"sessions_warned"`
	HardReserve int    `json:"sessions_at_hard_reserve"`
	Diverged    int    `json:"sessions_left_record"`
	Rejected    int    `json:"events_rejected"`
	FileErrors  int    `json:"file_errors"`
	// LeastRunway is the distribution, over the warned sessions, of each
	// session's least runway at a warning (tokens left above the
	// reserve); RunwayBins counts the same values in equal bins.
	LeastRunway *Quantiles `json:"least_runway_at_warning,omitempty"`
	RunwayBins  []Bin      `json:"runway_bins,omitempty"`
	// RunwayKinds counts those runways by kind of figure: measured,
	// estimated or projected.
	RunwayKinds map[string]int `json:"runway_kinds,omitempty"`
	PeakTokens  int64          `json:"peak_tokens"`
	PeakKind    string         `json:"peak_kind"`
}

// Quantiles summarise a distribution of N values.
type Quantiles struct {
	N   int   `json:"n"`
	Min int64 `json:"min"`
	P10 int64 `json:"p10"`
	P50 int64 `json:"p50"`
	P90 int64 `json:"p90"`
	Max int64 `json:"max"`
}

// Bin is one bar of a distribution: values in [From, To).
type Bin struct {
	From  int64 `json:"from"`
	To    int64 `json:"to"`
	Count int   `json:"count"`
}

// SettingFigures are one setting's figures on one session; a turn of 0
// means the setting never did it.
type SettingFigures struct {
	Peak          int64   `json:"peak_tokens"`
	PeakKind      string  `json:"peak_kind"`
	PeakShare     float64 `json:"peak_share"`
	Resets        int     `json:"resets"`
	Checkpoints   int     `json:"checkpoints"`
	RemindedAt    int     `json:"first_reminder_turn,omitempty"`
	WarnedAt      int     `json:"first_warning_turn,omitempty"`
	HardReserveAt int     `json:"first_hard_reserve_turn,omitempty"`
}

// Session is one session of the corpus.
type Session struct {
	File  string `json:"file"`
	Name  string `json:"name,omitempty"`
	Turns int    `json:"turns"`
	// Peak is the first setting's peak context and its share of the
	// window; Resets and Checkpoints are the first setting's too.
	Peak        int64   `json:"peak_tokens"`
	PeakShare   float64 `json:"peak_share"`
	Resets      int     `json:"resets"`
	Checkpoints int     `json:"checkpoints"`
	Warned      bool    `json:"warned"`
	// Settings are the figures of each compared setting, in the order of
	// ReplaySection.Settings; Differ is how much their decisions differ
	// (the session the settings differ most on is charted first).
	Settings []SettingFigures `json:"per_setting"`
	Differ   float64          `json:"differ"`
	// Reports are the settings' reports as `replay --json` prints them,
	// and Chart the context-over-turns chart; both only for charted
	// sessions, to bound the page.
	Reports []*replay.Report `json:"reports,omitempty"`
	Chart   string           `json:"chart,omitempty"`
}
