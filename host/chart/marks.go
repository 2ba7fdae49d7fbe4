package chart

import (
	"math"

	"github.com/resetpolicy/resetpolicy/rules"
)

// shape is a decision kind's mark: a circle, or a polygon of unit points
// scaled by size.
type shape struct {
	circle bool
	size   float64
	unit   []pt
}

func (s shape) at(x, y float64) []pt {
	out := make([]pt, len(s.unit))
	for i, p := range s.unit {
		out[i] = pt{x + p.X*s.size, y + p.Y*s.size}
	}
	return out
}

func star() []pt {
	var out []pt
	for i := 0; i < 10; i++ {
		r := 1.35
		if i%2 == 1 {
			r = 0.6
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		out = append(out, pt{r * math.Cos(a), r * math.Sin(a)})
	}
	return out
}

// kindMarks are the marks of the decision kinds, in the legend's order:
// the ones a window meets early are the plain shapes, the hard reserve a
// star.
var kindMarks = []struct {
	kind  rules.DecisionKind
	label string
	shape shape
}{
	{rules.KindReminder, "reminder", shape{circle: true, size: 4.5}},
	{rules.KindWarning, "warning", shape{size: 5.5, unit: []pt{{0, -1.15}, {1.05, 0.75}, {-1.05, 0.75}}}},
	{rules.KindCheckpoint, "checkpoint", shape{size: 4.5, unit: []pt{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}}},
	{rules.KindReset, "reset", shape{size: 5.5, unit: []pt{{0, -1.2}, {1, 0}, {0, 1.2}, {-1, 0}}}},
	{rules.KindHardReserve, "hard reserve", shape{size: 5.5, unit: star()}},
}
