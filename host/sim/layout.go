package sim

import (
	"slices"

	"github.com/resetpolicy/resetpolicy/rules"
)

// Layout is how a timeline is printed.
type Layout struct {
	// LabelWidth is the width of the event column; WriteTimeline sets it
	// to the longest label, so the columns after it stay aligned.
	LabelWidth int
	// Wide prints notice and reply texts whole instead of cut.
	Wide bool
}

// defaultLabelWidth fits every label of the built-in scenarios but the
// longest commands.
const defaultLabelWidth = 34

// cut is the length a quoted effect text is cut to (0: whole).
func (l Layout) cut() int {
	if l.Wide {
		return 0
	}
	return 32
}

// read returns the derived values the fired rules read, as they saw them,
// in the policy's order.
func (h *host) read(fired []string, all []Value) []Value {
	names := map[string]bool{}
	for _, name := range fired {
		for _, r := range h.pol.Rules {
			if r.Name == name {
				for _, d := range rules.DerivedReads(h.pol, r) {
					names[d] = true
				}
			}
		}
	}
	var out []Value
	for _, v := range all {
		if names[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// derivedText is the {…} block of a line: the derived values that
// changed, and those a fired rule read marked with *.
func (l *Line) derivedText() string {
	var ds []string
	seen := map[string]bool{}
	for _, d := range l.Derived {
		s := d.Name + "=" + d.Text
		if slices.ContainsFunc(l.Read, func(r Value) bool { return r.Name == d.Name }) {
			s += "*"
		}
		seen[d.Name] = true
		ds = append(ds, s)
	}
	for _, r := range l.Read {
		if !seen[r.Name] {
			ds = append(ds, r.Name+"="+r.Text+"*")
		}
	}
	if len(ds) == 0 {
		return ""
	}
	return "{" + joinSpace(ds) + "}"
}

func joinSpace(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}
