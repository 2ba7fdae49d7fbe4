package report

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/resetpolicy/resetpolicy/host/chart"
	"github.com/resetpolicy/resetpolicy/host/replay"
)

// Bounds of the replay section, so that a corpus of any size gives a page
// of bounded size: every session is listed in one short row, but only
// the MaxCharts most telling ones carry a chart and their full reports,
// and those stop early once they hold ChartBudget bytes.
const (
	MaxCharts   = 24
	ChartBudget = 6 << 20
	// MaxListed bounds the rows of the session list; the corpus figures
	// still count every session.
	MaxListed = 5000
	runwayBin = 10
)

// ReplayBuilder gathers the replay section one session at a time, holding
// only the running figures, the rows and the MaxCharts best candidates
// for a chart.
type ReplayBuilder struct {
	sec        ReplaySection
	undeclared []bool // per setting: its policy declares no decision kind
	runways    [][]int64
	candidates []candidate
	unlisted   int
	// ranOn counts the reports of warned sessions that run on past the
	// warning (no close-out assumed); assumed, the close-outs assumed.
	ranOn, assumed int
}

type candidate struct {
	row        int
	score      float64
	reports    []*replay.Report
	thresholds [][]replay.Threshold
}

// NewReplayBuilder starts a section for the compared settings.
func NewReplayBuilder(settings []string) *ReplayBuilder {
	b := &ReplayBuilder{sec: ReplaySection{Settings: settings, Sessions: []Session{}}}
	for i := range settings {
		b.sec.Colours = append(b.sec.Colours, chart.Palette[i%len(chart.Palette)])
	}
	b.runways = make([][]int64, len(settings))
	b.undeclared = make([]bool, len(settings))
	for _, s := range settings {
		b.sec.Corpus = append(b.sec.Corpus, Corpus{Setting: s, PeakKind: "measured"})
	}
	return b
}

// Fail records a file that could not be replayed.
func (b *ReplayBuilder) Fail(reason string) {
	if len(b.sec.Failed) < MaxListed {
		b.sec.Failed = append(b.sec.Failed, cut(reason))
	}
}

// Add takes one session's reports, one per setting, and each setting's
// thresholds for its window.
func (b *ReplayBuilder) Add(reports []*replay.Report, thresholds [][]replay.Threshold) {
	for i, r := range reports {
		if i >= len(b.sec.Corpus) {
			break
		}
		if r.FirstWarning != nil && r.AssumedCloseOuts == 0 {
			b.ranOn++
		}
		b.assumed += r.AssumedCloseOuts
		c := &b.sec.Corpus[i]
		c.Sessions++
		c.Turns += r.Turns
		c.Events += r.Events
		c.Resets += r.Resets
		c.Checkpoints += r.Checkpoints
		c.Rejected += len(r.Rejected)
		c.FileErrors += len(r.Errors)
		if r.FirstHardReserve != nil {
			c.HardReserve++
		}
		if r.KindsUndeclared && !b.undeclared[i] {
			b.undeclared[i] = true
			b.sec.Caveats = append(b.sec.Caveats, "The policy of "+b.sec.Settings[i]+" injects messages or resets but declares no decision kind (kind = reminder, warning, checkpoint, reset or hard_reserve on a message or rule): its reminders, warnings, checkpoints, resets and hard reserves are neither counted nor marked.")
		}
		if r.DivergedAt > 0 {
			c.Diverged++
		}
		if r.PeakTokens > c.PeakTokens {
			c.PeakTokens, c.PeakKind = r.PeakTokens, string(r.PeakKind)
		}
		if len(r.Warnings) > 0 {
			c.Warned++
			least := r.Warnings[0]
			for _, w := range r.Warnings[1:] {
				if w.Runway < least.Runway {
					least = w
				}
			}
			b.runways[i] = append(b.runways[i], least.Runway)
			if c.RunwayKinds == nil {
				c.RunwayKinds = map[string]int{}
			}
			c.RunwayKinds[string(least.Kind)]++
		}
	}
	if len(reports) == 0 {
		return
	}
	first := reports[0]
	row := Session{File: cut(first.File), Name: cut(first.Name), Turns: first.Turns, Peak: first.PeakTokens,
		Resets: first.Resets, Checkpoints: first.Checkpoints, Warned: first.FirstWarning != nil}
	if first.ContextWindow > 0 {
		row.PeakShare = float64(first.PeakTokens) / float64(first.ContextWindow)
	}
	for _, r := range reports {
		f := SettingFigures{Peak: r.PeakTokens, PeakKind: string(r.PeakKind), Resets: r.Resets, Checkpoints: r.Checkpoints}
		if r.ContextWindow > 0 {
			f.PeakShare = float64(r.PeakTokens) / float64(r.ContextWindow)
		}
		if r.FirstReminder != nil {
			f.RemindedAt = max(r.FirstReminder.Turn, 1)
		}
		if r.FirstWarning != nil {
			f.WarnedAt = max(r.FirstWarning.Turn, 1)
		}
		if r.FirstHardReserve != nil {
			f.HardReserveAt = max(r.FirstHardReserve.Turn, 1)
		}
		row.Settings = append(row.Settings, f)
	}
	row.Differ = differ(reports)
	if len(b.sec.Sessions) >= MaxListed {
		b.unlisted++
		return
	}
	b.sec.Sessions = append(b.sec.Sessions, row)
	b.offer(candidate{row: len(b.sec.Sessions) - 1, score: score(reports, row), reports: reports, thresholds: thresholds})
}

// score orders the sessions a reader opens first: those where the
// compared settings differ most, then those where any setting resets or
// checkpoints, then those that came closest to the window.
func score(reports []*replay.Report, row Session) float64 {
	s := row.PeakShare + 100*row.Differ
	for _, r := range reports {
		if r.Resets+r.Checkpoints > 0 || r.FirstHardReserve != nil {
			return 10 + s
		}
	}
	return s
}

// differ says how much the settings' decisions differ on a session: per
// pair of settings, the decisions of each declared kind one makes and the
// other does not, and the turns between their first warnings (and first
// reminders) as a share of the session. 0 with one setting, or where the
// settings decide alike.
func differ(reports []*replay.Report) float64 {
	counts := make([]map[string]int, len(reports))
	for i, r := range reports {
		counts[i] = map[string]int{}
		for _, d := range r.Decisions {
			for _, k := range d.Kinds {
				counts[i][k]++
			}
		}
	}
	turn := func(m *replay.Mark, turns int) float64 {
		if m == nil {
			return float64(turns + 1)
		}
		return float64(m.Turn)
	}
	var out float64
	for i := range reports {
		for j := i + 1; j < len(reports); j++ {
			for _, k := range []string{"reminder", "warning", "checkpoint", "reset", "hard_reserve"} {
				out += math.Abs(float64(counts[i][k] - counts[j][k]))
			}
			turns := max(reports[i].Turns, reports[j].Turns, 1)
			out += math.Abs(turn(reports[i].FirstWarning, turns)-turn(reports[j].FirstWarning, turns)) / float64(turns)
			out += math.Abs(turn(reports[i].FirstReminder, turns)-turn(reports[j].FirstReminder, turns)) / float64(turns)
		}
	}
	return out
}

// offer keeps the MaxCharts best candidates; on equal scores the earlier
// session stays, so the page does not depend on replay order beyond the
// order files are listed in.
func (b *ReplayBuilder) offer(c candidate) {
	if len(b.candidates) < MaxCharts {
		b.candidates = append(b.candidates, c)
		return
	}
	worst := 0
	for i, o := range b.candidates {
		if o.score < b.candidates[worst].score || (o.score == b.candidates[worst].score && o.row > b.candidates[worst].row) {
			worst = i
		}
	}
	if c.score > b.candidates[worst].score {
		b.candidates[worst] = c
	}
}

// Section finishes the section: corpus distributions, and charts for the
// best candidates within the byte budget.
func (b *ReplayBuilder) Section() *ReplaySection {
	sec := b.sec
	for i := range sec.Corpus {
		vals := b.runways[i]
		sort.Slice(vals, func(a, c int) bool { return vals[a] < vals[c] })
		sec.Corpus[i].LeastRunway = quantiles(vals)
		sec.Corpus[i].RunwayBins = bins(vals, runwayBin)
	}
	cands := slices.Clone(b.candidates)
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].row < cands[j].row
	})
	used := 0
	for _, c := range cands {
		s := &sec.Sessions[c.row]
		s.Reports = make([]*replay.Report, len(c.reports))
		for i, r := range c.reports {
			s.Reports[i] = pageReport(r)
		}
		s.Chart = chart.Panel(replay.PlotSession{Reports: c.reports, Thresholds: c.thresholds})
		size := len(s.Chart)
		if enc, err := json.Marshal(s.Reports); err == nil {
			size += len(enc)
		}
		if used+size > ChartBudget {
			s.Reports, s.Chart = nil, ""
			continue
		}
		used += size
		if sec.Charted == 0 {
			sec.First = c.row
		}
		sec.Charted++
	}
	if b.unlisted > 0 {
		sec.Caveats = append(sec.Caveats, plural(b.unlisted, "more session")+" counted in the figures but not listed (the list holds at most 5000)")
	}
	if b.ranOn > 0 {
		sec.Caveats = append(sec.Caveats, "The sessions were recorded without this policy's warnings: a replay cannot show the agent acting on a warning (closing out, writing notes), so after a warning it shows the session running on as recorded, towards the hard reserve. --assume-obeys-within N assumes instead that the agent closes out N turns after a window's first warning.")
	}
	if b.assumed > 0 {
		sec.Caveats = append(sec.Caveats, plural(b.assumed, "close-out")+" after a warning "+are(b.assumed)+" assumed (--assume-obeys-within), not recorded: the figures after "+them(b.assumed)+" are projected.")
	}
	for _, c := range sec.Corpus {
		if c.Diverged > 0 {
			sec.Caveats = append(sec.Caveats, "Figures after a session left the record are projected (marked p): the context the replay works out for the window the policy made, which the record never had. A projected context can pass the window: the session, as recorded, ran on without the policy's reset.")
			break
		}
	}
	return &sec
}

func are(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// quantiles of sorted values (nearest rank); nil when there are none.
func quantiles(v []int64) *Quantiles {
	if len(v) == 0 {
		return nil
	}
	at := func(q float64) int64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
	return &Quantiles{N: len(v), Min: v[0], P10: at(0.1), P50: at(0.5), P90: at(0.9), Max: v[len(v)-1]}
}

// bins counts sorted values in n equal bins from the least to the most.
func bins(v []int64, n int) []Bin {
	if len(v) == 0 {
		return nil
	}
	lo, hi := v[0], v[len(v)-1]+1
	width := max(1, (hi-lo+int64(n)-1)/int64(n))
	out := make([]Bin, 0, n)
	for k := int64(0); k < int64(n) && lo+k*width < hi; k++ {
		out = append(out, Bin{From: lo + k*width, To: lo + (k+1)*width})
	}
	for _, x := range v {
		out[min(int64(len(out)-1), (x-lo)/width)].Count++
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
