package replay_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// A note is printed once, labelled with every setting it applies to, not
// only the first.
func TestNotesNameEverySettingTheyApplyTo(t *testing.T) {
	reps := []*replay.Report{
		{Label: "a=1", Notes: []string{"shared", "first only"}},
		{Label: "a=2", Notes: []string{"shared"}},
		{Label: "a=3", Notes: []string{"shared", "last only"}},
	}
	var b bytes.Buffer
	if err := replay.WriteText(&b, reps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  note [a=1, a=2, a=3]: shared\n", "  note [a=1]: first only\n", "  note [a=3]: last only\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	if n := strings.Count(b.String(), ": shared"); n != 1 {
		t.Errorf("shared note printed %d times", n)
	}
}

// Totals say how many of their counts come from turns after a session left
// the record.
func TestTotalsSayWhatIsProjected(t *testing.T) {
	var tot replay.Total
	tot.Add(&replay.Report{FirstReminder: &replay.Mark{}, FirstWarning: &replay.Mark{Projected: true}, Resets: 2, ProjectedResets: 1})
	tot.Add(&replay.Report{FirstWarning: &replay.Mark{}, FirstHardReserve: &replay.Mark{Projected: true}, Checkpoints: 1})
	var b bytes.Buffer
	if err := replay.WriteTotals(&b, []string{"x"}, []replay.Total{tot}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1/2/1 (0/1/1 projected)", "2/1 (1/0 projected)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	var none replay.Total
	none.Add(&replay.Report{FirstWarning: &replay.Mark{}, Resets: 1})
	b.Reset()
	_ = replay.WriteTotals(&b, []string{"x"}, []replay.Total{none})
	if strings.Contains(b.String(), "projected)") {
		t.Errorf("nothing projected, yet:\n%s", b.String())
	}
}
