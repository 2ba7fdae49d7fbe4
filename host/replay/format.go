package replay

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Every token figure is printed with the mark of its kind.
var kindMarks = map[Kind]string{Measured: "m", Estimated: "e", Projected: "p"}

// Legend explains the marks.
const Legend = "(m: measured by the provider; e: Pi's estimate of the record; p: projected, after the replay left the record)"

func num(n int64, kind Kind) string {
	return strconv.FormatInt(n, 10) + kindMarks[kind]
}

func mark(m *Mark) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("turn %d (%s tok, runway %s)", m.Turn, num(m.Tokens, m.Kind), num(m.Runway, m.Kind))
}

// rows are the lines of one report in a text table, as label and value.
func rows(r *Report) [][2]string {
	warn := "-"
	if len(r.Warnings) > 0 {
		var parts []string
		for i, w := range r.Warnings {
			if i == 6 {
				parts = append(parts, fmt.Sprintf("… %d more", len(r.Warnings)-6))
				break
			}
			parts = append(parts, fmt.Sprintf("t%d:%s", w.Turn, num(w.Runway, w.Kind)))
		}
		warn = strings.Join(parts, " ")
	}
	diverged := "-"
	if r.DivergedAt > 0 {
		diverged = fmt.Sprintf("turn %d (later figures projected, p)", r.DivergedAt)
	}
	out := [][2]string{
		{"turns", strconv.Itoa(r.Turns)},
		{"events", strconv.Itoa(r.Events)},
		{"peak context", num(r.PeakTokens, r.PeakKind)},
		{"first reminder", mark(r.FirstReminder)},
		{"first warning", mark(r.FirstWarning)},
		{"first hard reserve", mark(r.FirstHardReserve)},
		{"runway at warnings", warn},
		{"resets (policy)", strconv.Itoa(r.Resets)},
		{"checkpoints (policy)", strconv.Itoa(r.Checkpoints)},
		{"compactions started/cancelled", fmt.Sprintf("%d/%d", r.Compactions, r.CancelledCompactions)},
		{"Pi compactions (projected)", strconv.Itoa(r.ProjectedCompactions)},
		{"left the record at", diverged},
		{"recorded overflows not replayed", strconv.Itoa(r.OverflowsNotReplayed)},
		{"assumed close-outs", strconv.Itoa(r.AssumedCloseOuts)},
		{"rejected events", strconv.Itoa(len(r.Rejected))},
	}
	return out
}

func header(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%s\n", r.String())
	fmt.Fprintf(w, "  session %s, format v%d, model %s, context window %d (%s)\n", r.Session, r.Version, orDash(r.Model), r.ContextWindow, r.WindowFrom)
	fmt.Fprintf(w, "  recorded: peak context %s, %d compactions, %d resets", num(r.RecordedPeakTokens, r.RecordedPeakKind), r.RecordedCompactions, r.RecordedResets)
	if r.NotReplayed > 0 {
		fmt.Fprintf(w, " (%d after the replay left the record, not replayed)", r.NotReplayed)
	}
	fmt.Fprintln(w)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped entry types: %s\n", formatCounts(r.Skipped))
	}
	if r.Joined > 0 {
		fmt.Fprintf(w, "  %d lines held more than one JSON object\n", r.Joined)
	}
	for _, s := range r.Stated {
		fmt.Fprintf(w, "  line %d: the provider measured the prompt at %s tokens", s.Line, num(s.Tokens, Measured))
		if s.Maximum > 0 {
			fmt.Fprintf(w, " (its maximum: %d)", s.Maximum)
		}
		fmt.Fprintln(w)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

// notes writes each note once, labelled with every setting it applies to
// (settings often share them).
func notes(w io.Writer, reps []*Report) {
	var order []string
	labels := map[string][]string{}
	for _, r := range reps {
		for _, n := range r.Notes {
			if _, ok := labels[n]; !ok {
				order = append(order, n)
			}
			if l := labels[n]; len(l) == 0 || l[len(l)-1] != r.Label {
				labels[n] = append(l, r.Label)
			}
		}
	}
	for _, n := range order {
		label := ""
		if len(reps) > 1 {
			label = " [" + strings.Join(labels[n], ", ") + "]"
		}
		fmt.Fprintf(w, "  note%s: %s\n", label, n)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteText writes the reports of one session, one column per setting.
func WriteText(w io.Writer, reps []*Report) error {
	if len(reps) == 0 {
		return nil
	}
	header(w, reps[0])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(reps) > 1 {
		fmt.Fprint(tw, "  ")
		for _, r := range reps {
			fmt.Fprintf(tw, "\t%s", r.Label)
		}
		fmt.Fprintln(tw)
	}
	table := make([][][2]string, len(reps))
	for i, r := range reps {
		table[i] = rows(r)
	}
	for j := range table[0] {
		fmt.Fprintf(tw, "  %s", table[0][j][0])
		for i := range reps {
			fmt.Fprintf(tw, "\t%s", table[i][j][1])
		}
		fmt.Fprintln(tw)
	}
	notes(tw, reps)
	for _, r := range reps {
		for _, x := range r.Rejected {
			fmt.Fprintf(tw, "  rejected%s: turn %d %s: %s\n", labelled(r, len(reps)), x.Turn, x.Event, x.Error)
		}
	}
	return tw.Flush()
}

func labelled(r *Report, n int) string {
	if n > 1 {
		return " [" + r.Label + "]"
	}
	return ""
}

// WriteTotals writes the totals of a corpus, one column per setting.
func WriteTotals(w io.Writer, labels []string, totals []Total) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "total")
	if len(labels) > 1 {
		for _, l := range labels {
			fmt.Fprintf(tw, "\t%s", l)
		}
	}
	fmt.Fprintln(tw)
	line := func(label string, f func(t Total) string) {
		fmt.Fprintf(tw, "  %s", label)
		for _, t := range totals {
			fmt.Fprintf(tw, "\t%s", f(t))
		}
		fmt.Fprintln(tw)
	}
	line("sessions", func(t Total) string { return strconv.Itoa(t.Sessions) })
	line("turns", func(t Total) string { return strconv.Itoa(t.Turns) })
	line("events", func(t Total) string { return strconv.Itoa(t.Events) })
	line("peak context", func(t Total) string { return num(t.PeakTokens, t.PeakKind) })
	line("sessions reminded/warned/hard reserve", func(t Total) string {
		return fmt.Sprintf("%d/%d/%d", t.Reminded, t.Warned, t.HardReserve) +
			projected(t.ProjectedReminded+t.ProjectedWarned+t.ProjectedHardReserve, fmt.Sprintf("%d/%d/%d", t.ProjectedReminded, t.ProjectedWarned, t.ProjectedHardReserve))
	})
	line("least runway at a warning", func(t Total) string {
		if !t.HaveMinWarningRunway {
			return "-"
		}
		return num(t.MinWarningRunway, t.MinWarningRunwayKind)
	})
	line("resets/checkpoints (policy)", func(t Total) string {
		return fmt.Sprintf("%d/%d", t.Resets, t.Checkpoints) +
			projected(t.ProjectedResets+t.ProjectedCheckpoints, fmt.Sprintf("%d/%d", t.ProjectedResets, t.ProjectedCheckpoints))
	})
	line("compactions started/cancelled", func(t Total) string { return fmt.Sprintf("%d/%d", t.Compactions, t.Cancelled) })
	line("compactions/resets recorded", func(t Total) string {
		return fmt.Sprintf("%d/%d", t.RecordedCompactions, t.RecordedResets)
	})
	line("sessions left the record", func(t Total) string { return strconv.Itoa(t.Diverged) })
	line("rejected events", func(t Total) string { return strconv.Itoa(t.Rejected) })
	line("recorded overflows not replayed", func(t Total) string { return strconv.Itoa(t.OverflowsNotReplayed) })
	line("file errors", func(t Total) string { return strconv.Itoa(t.Errors) })
	fmt.Fprintln(tw, Legend)
	return tw.Flush()
}

// projected says how many of a total's counts come from projected turns,
// after a session left the record, when any do.
func projected(n int, counts string) string {
	if n == 0 {
		return ""
	}
	return " (" + counts + " projected)"
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func sortStrings(s []string) { slices.Sort(s) }
