package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// rep makes a report of a session with the given peak and decisions.
func rep(file string, peak int64, resets, decisions int) *replay.Report {
	r := &replay.Report{File: file, Session: file, ContextWindow: 200000, PeakTokens: peak, Resets: resets, Turns: 10}
	for i := 0; i < decisions; i++ {
		r.Decisions = append(r.Decisions, replay.Decision{Turn: i, Event: "turn_end", Tokens: peak, Rules: []string{"r"},
			Effects: []map[string]any{{"effect": "notify", "text": strings.Repeat("x", 200)}}})
	}
	for t := 0; t < 10; t++ {
		r.Points = append(r.Points, replay.Point{Turn: t, Tokens: peak * int64(t) / 9, Kind: replay.Measured})
	}
	return r
}

func TestChartsGoToTheMostTellingSessions(t *testing.T) {
	b := NewReplayBuilder([]string{"wipe_memory"})
	for i := 0; i < 100; i++ {
		resets := 0
		if i%10 == 3 {
			resets = 1
		}
		b.Add([]*replay.Report{rep(fmt.Sprintf("s%03d", i), int64(1000*i), resets, 1)}, nil)
	}
	sec := b.Section()
	if len(sec.Sessions) != 100 || sec.Charted != MaxCharts {
		t.Fatalf("%d listed, %d charted; want 100 and %d", len(sec.Sessions), sec.Charted, MaxCharts)
	}
	// The ten that reset come first, then the highest peaks among the
	// rest: s099 down to s085, less s093, which resets.
	for i, s := range sec.Sessions {
		charted := s.Chart != ""
		want := i%10 == 3 || i >= 85
		if charted != want {
			t.Errorf("%s (resets %d, peak %d): charted %v, want %v", s.File, s.Resets, s.Peak, charted, want)
		}
		if charted != (s.Reports != nil) {
			t.Errorf("%s: a chart and its reports go together", s.File)
		}
	}
}

func TestChartBudgetBoundsThePage(t *testing.T) {
	b := NewReplayBuilder([]string{"a"})
	for i := 0; i < 40; i++ {
		// Each session's reports encode to about 300 KB.
		b.Add([]*replay.Report{rep(fmt.Sprintf("s%d", i), 150000, 1, 1000)}, nil)
	}
	sec := b.Section()
	size := 0
	for _, s := range sec.Sessions {
		if s.Chart != "" {
			enc, _ := json.Marshal(s.Reports)
			size += len(s.Chart) + len(enc)
		}
	}
	if size > ChartBudget || sec.Charted == 0 || sec.Charted == MaxCharts {
		t.Errorf("charted %d sessions in %d bytes: want some, fewer than %d, within %d bytes", sec.Charted, size, MaxCharts, ChartBudget)
	}
}

func TestCorpusFigures(t *testing.T) {
	b := NewReplayBuilder([]string{"a", "b"})
	for i, runway := range []int64{5000, 1000, 9000} {
		ra, rb := rep(fmt.Sprint(i), 100000, 1, 0), rep(fmt.Sprint(i), 100000, 0, 0)
		ra.Warnings = []replay.Mark{{Runway: runway + 50, Kind: replay.Measured}, {Runway: runway, Projected: i == 2, Kind: replay.Measured}}
		if i == 2 {
			ra.Warnings[1].Kind = replay.Projected
		}
		ra.FirstWarning = &ra.Warnings[0]
		b.Add([]*replay.Report{ra, rb}, nil)
	}
	sec := b.Section()
	a, bb := sec.Corpus[0], sec.Corpus[1]
	if a.Sessions != 3 || a.Resets != 3 || a.Warned != 3 || bb.Warned != 0 || bb.Resets != 0 {
		t.Errorf("corpus %+v / %+v", a, bb)
	}
	q := a.LeastRunway
	if q == nil || q.N != 3 || q.Min != 1000 || q.P50 != 5000 || q.Max != 9000 || a.RunwayKinds["projected"] != 1 || a.RunwayKinds["measured"] != 2 {
		t.Errorf("least runway %+v (kinds %v): want each session's least, 1000/5000/9000, one projected", q, a.RunwayKinds)
	}
	total := 0
	for _, bin := range a.RunwayBins {
		total += bin.Count
	}
	if total != 3 || a.RunwayBins[0].From != 1000 {
		t.Errorf("bins %+v", a.RunwayBins)
	}
	if bb.LeastRunway != nil || len(sec.Caveats) != 1 {
		t.Errorf("setting b warned nobody: %+v; caveats %v", bb.LeastRunway, sec.Caveats)
	}
}

func TestListBound(t *testing.T) {
	b := NewReplayBuilder([]string{"a"})
	for i := 0; i < MaxListed+3; i++ {
		b.Add([]*replay.Report{{File: fmt.Sprint(i), ContextWindow: 1}}, nil)
	}
	sec := b.Section()
	if len(sec.Sessions) != MaxListed || sec.Corpus[0].Sessions != MaxListed+3 {
		t.Errorf("%d listed, %d counted", len(sec.Sessions), sec.Corpus[0].Sessions)
	}
	if !strings.Contains(strings.Join(sec.Caveats, " "), "3 more sessions counted") {
		t.Errorf("caveats %v: want the unlisted sessions said", sec.Caveats)
	}
}

func TestDataCannotCloseItsScript(t *testing.T) {
	d := &Doc{Policy: &PolicySection{Summary: json.RawMessage(`{"name":"p"}`), Messages: []Named{{Name: "m", Text: "</script><script>alert(1)</script>"}}}}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want the two of its own", n)
	}
	if !strings.Contains(page, "<title>resetpolicy report: p</title>") {
		t.Error("title lacks the policy's name")
	}
}

// The caveats say what a replay assumed: a warned session ran on as
// recorded (and the flag that assumes otherwise), close-outs assumed by that
// flag, and figures projected after a session left the record.
func TestCaveatsSayWhatIsAssumed(t *testing.T) {
	b := NewReplayBuilder([]string{"a"})
	r := rep("x", 100000, 0, 0)
	r.FirstWarning = &replay.Mark{Turn: 3}
	b.Add([]*replay.Report{r}, nil)
	got := strings.Join(b.Section().Caveats, "\n")
	if !strings.Contains(got, "running on as recorded") || !strings.Contains(got, "--assume-obeys-within N assumes instead") || strings.Contains(got, "projected") {
		t.Errorf("a warned session that ran on, nothing projected:\n%s", got)
	}

	b = NewReplayBuilder([]string{"a"})
	r = rep("x", 219410, 1, 0)
	r.FirstWarning, r.AssumedCloseOuts, r.DivergedAt = &replay.Mark{Turn: 3}, 1, 5
	b.Add([]*replay.Report{r}, nil)
	got = strings.Join(b.Section().Caveats, "\n")
	for _, want := range []string{"1 close-out after a warning is assumed (--assume-obeys-within)", "Figures after a session left the record are projected (marked p)"} {
		if !strings.Contains(got, want) {
			t.Errorf("caveats lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "running on as recorded") {
		t.Errorf("close-outs assumed, yet the caveat says the session ran on:\n%s", got)
	}
}

// Two sessions of 6 MB names (and ids, models, notes, problems, skipped
// entry types, rejected events) among three, and a failed file of a 6 MB
// reason: the page is written, every one of its strings of a session
// within MaxSessionString, the hostile sessions still listed and charted.
// The names alone took the page over MaxPageBytes, and no page was
// written.
func TestHostileSessionStringsAreCut(t *testing.T) {
	if MaxSessionString != 512 {
		t.Fatalf("docs/limits.md gives the bound as 512 bytes")
	}
	huge := strings.Repeat("é", 3<<20) // 6 MB, two bytes a character
	b := NewReplayBuilder([]string{"a"})
	for i := 0; i < 3; i++ {
		r := rep(fmt.Sprintf("s%d", i), 150000, 1, 3)
		if i < 2 {
			r.Name, r.Session, r.Model, r.Leaf, r.File = huge, huge, huge, huge, huge+fmt.Sprint(i)
			r.Notes, r.Errors = []string{huge}, []string{huge}
			r.Skipped = map[string]int{huge: 2}
			r.Rejected = []replay.Rejected{{Turn: 1, Event: huge, Error: huge}}
			r.Decisions[0].Effects[0]["text"] = huge
		}
		b.Add([]*replay.Report{r}, nil)
	}
	b.Fail(huge)
	sec := b.Section()
	if len(sec.Sessions) != 3 || sec.Charted != 3 {
		t.Fatalf("%d listed, %d charted; want 3 and 3", len(sec.Sessions), sec.Charted)
	}
	var page bytes.Buffer
	if err := Write(&page, &Doc{Replay: sec}); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 1<<20 {
		t.Errorf("the page is %d bytes", page.Len())
	}
	// Every string of the section, decoded, is within the bound.
	enc, _ := json.Marshal(sec)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) > MaxSessionString {
				t.Errorf("a string of %d bytes on the page: %.40q…", len(v), v)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				walk(k)
				if k != "chart" {
					walk(x)
				}
			}
		}
	}
	var tree any
	json.Unmarshal(enc, &tree)
	walk(tree)
	if n := sec.Sessions[0].Name; !strings.HasPrefix(n, "éé") || !strings.HasSuffix(n, "… (6291456 bytes)") {
		t.Errorf("a cut name keeps its start and says its length: %.20q…%q", n, n[len(n)-20:])
	}
}

// With more sessions of one score than there are charts, the earlier
// sessions keep theirs: a later session of equal score never takes an
// earlier one's chart.
func TestEqualScoresKeepTheEarlierSessions(t *testing.T) {
	b := NewReplayBuilder([]string{"a"})
	for i := 0; i < MaxCharts+10; i++ {
		b.Add([]*replay.Report{rep(fmt.Sprintf("s%03d", i), 50000, 0, 1)}, nil)
	}
	sec := b.Section()
	for i, s := range sec.Sessions {
		if charted := s.Chart != ""; charted != (i < MaxCharts) {
			t.Errorf("session %d of equal score: charted %v, want %v", i, charted, i < MaxCharts)
		}
	}
}

// kinded is a report whose decisions are marked with the given kinds at
// the given turns.
func kinded(file string, marks map[int]string) *replay.Report {
	r := rep(file, 100000, 0, 0)
	r.Turns = 200
	for turn := 0; turn < 200; turn++ {
		if k, ok := marks[turn]; ok {
			r.Decisions = append(r.Decisions, replay.Decision{Turn: turn, Tokens: 1000, Kinds: []string{k}})
			m := &replay.Mark{Turn: turn}
			switch k {
			case "warning":
				if r.FirstWarning == nil {
					r.FirstWarning = m
				}
			case "reminder":
				if r.FirstReminder == nil {
					r.FirstReminder = m
				}
			case "hard_reserve":
				if r.FirstHardReserve == nil {
					r.FirstHardReserve = m
				}
			}
		}
	}
	return r
}

// Each setting has its own figures in a session's row, and the chart
// opened first is the session the settings differ most on, not the
// first file.
func TestSessionRowsPerSettingAndTheMostDifferentFirst(t *testing.T) {
	b := NewReplayBuilder([]string{"warning_runway=12288", "warning_runway=20000"})
	same := func() *replay.Report { return kinded("", map[int]string{175: "warning", 199: "hard_reserve"}) }
	// a: alike, both at the hard reserve (a reset used to put it first);
	// b: warnings at 191 and 175; c: warnings at 191 and 86, and only one
	// setting reminds.
	ra, rb := same(), same()
	ra.File, rb.File = "a", "a"
	b.Add([]*replay.Report{ra, rb}, nil)
	r1, r2 := kinded("b", map[int]string{191: "warning"}), kinded("b", map[int]string{175: "warning"})
	b.Add([]*replay.Report{r1, r2}, nil)
	c1, c2 := kinded("c", map[int]string{191: "warning"}), kinded("c", map[int]string{60: "reminder", 86: "warning"})
	b.Add([]*replay.Report{c1, c2}, nil)
	sec := b.Section()
	if sec.First != 2 {
		t.Errorf("first chart is row %d (%s), want row 2 (c), where the settings differ most; differ %v %v %v",
			sec.First, sec.Sessions[sec.First].File, sec.Sessions[0].Differ, sec.Sessions[1].Differ, sec.Sessions[2].Differ)
	}
	if sec.Sessions[0].Differ != 0 || !(sec.Sessions[1].Differ > 0 && sec.Sessions[2].Differ > sec.Sessions[1].Differ) {
		t.Errorf("differ a %v, b %v, c %v: want 0 < b < c", sec.Sessions[0].Differ, sec.Sessions[1].Differ, sec.Sessions[2].Differ)
	}
	row := sec.Sessions[2].Settings
	if len(row) != 2 || row[0].WarnedAt != 191 || row[1].WarnedAt != 86 || sec.Sessions[0].Settings[1].HardReserveAt != 199 {
		t.Errorf("per-setting figures of c: %+v", row)
	}
	if len(sec.Colours) != 2 || sec.Colours[0] == sec.Colours[1] {
		t.Errorf("setting colours %v", sec.Colours)
	}
}

// A setting whose policy declares no decision kind is said on the page,
// never shown as a corpus with no warnings.
func TestUndeclaredKindsAreACaveat(t *testing.T) {
	b := NewReplayBuilder([]string{"team", "wipe_memory"})
	for i := 0; i < 3; i++ {
		bare := rep(fmt.Sprint(i), 1000, 0, 0)
		bare.KindsUndeclared = true
		b.Add([]*replay.Report{bare, rep(fmt.Sprint(i), 1000, 0, 0)}, nil)
	}
	caveats := strings.Join(b.Section().Caveats, "\n")
	if strings.Count(caveats, "declares no decision kind") != 1 || !strings.Contains(caveats, "The policy of team ") {
		t.Errorf("caveats %q: want one for the setting team", caveats)
	}
}
