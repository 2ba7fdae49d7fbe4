package render

import (
	"fmt"
	"sort"

	"github.com/resetpolicy/resetpolicy/engine/graph"
)

// route draws an edge through its virtual points as a smooth curve, the
// arrow at the state the edge enters.
func route(d *graph.Diagram, se *segEdge, all []*elem, nodeElem []*elem, prefix string) wire {
	e := d.Edges[se.e]
	src, dst := nodeElem[se.from], nodeElem[se.to]
	if se.flat {
		return arch(e, se, all[se.chain[0]], src, dst, prefix)
	}
	pts := []pt{{se.srcX, boxBottom(src)}}
	var lab *elem
	for _, c := range se.chain {
		el := all[c]
		if el.label != nil {
			lab = el
		}
		pts = append(pts, pt{el.x, el.y}, pt{el.x, el.y + el.h})
	}
	pts = append(pts, pt{se.dstX, boxTop(dst)})
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, se.e), From: e.From, To: e.To, Events: e.Events(), Rules: ruleNames(e),
		Title: e.From + " → " + e.To + "\n" + e.RuleText()}
	if lab != nil {
		w.Label, w.Widths = lab.label, lab.widths
		w.LX, w.LY = lab.x+5, lab.y
	}
	// Leave room for the arrowhead at the entered end.
	if se.reversed {
		pts[0].Y += arrowLen
		tip := pt{se.srcX, boxBottom(src)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y + arrowLen}, {tip.X + arrowHalfWide, tip.Y + arrowLen}}
	} else {
		last := len(pts) - 1
		pts[last].Y -= arrowLen
		tip := pt{se.dstX, boxTop(dst)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y - arrowLen}, {tip.X + arrowHalfWide, tip.Y - arrowLen}}
	}
	w.Path = smooth(pts)
	return w
}

// arch draws a flat edge from its source's side through its point in the
// layer above (or below) to the top (or bottom) of its target.
func arch(e graph.Edge, se *segEdge, mid, src, dst *elem, prefix string) wire {
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, se.e), From: e.From, To: e.To, Events: e.Events(), Rules: ruleNames(e),
		Title: e.From + " → " + e.To + "\n" + e.RuleText(), Label: mid.label, Widths: mid.widths, LX: mid.x + 5, LY: mid.y}
	above := mid.y < src.y
	var a, m, b pt
	if above {
		a, m, b = pt{se.srcX, boxTop(src)}, pt{mid.x, mid.y + mid.h}, pt{se.dstX, boxTop(dst) - arrowLen}
		tip := pt{se.dstX, boxTop(dst)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y - arrowLen}, {tip.X + arrowHalfWide, tip.Y - arrowLen}}
	} else {
		a, m, b = pt{se.srcX, boxBottom(src)}, pt{mid.x, mid.y}, pt{se.dstX, boxBottom(dst) + arrowLen}
		tip := pt{se.dstX, boxBottom(dst)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y + arrowLen}, {tip.X + arrowHalfWide, tip.Y + arrowLen}}
	}
	w.Path = smooth([]pt{a, m, b})
	return w
}

func boxTop(el *elem) float64    { return el.y + (el.h-el.boxH)/2 }
func boxBottom(el *elem) float64 { return boxTop(el) + el.boxH }

// smooth turns a polyline of mostly vertical steps into cubic pieces
// whose tangents are vertical at every point.
func smooth(pts []pt) []pt {
	out := []pt{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dy := (b.Y - a.Y) / 2
		out = append(out, pt{a.X, a.Y + dy}, pt{b.X, b.Y - dy}, b)
	}
	return out
}

// loop draws a state's loop on its right side, its label beyond it
// (parallel loops are merged into one edge, so a state has one).
func loop(d *graph.Diagram, ei int, el *elem, prefix string) wire {
	e := d.Edges[ei]
	boxRight := el.x + el.widths[0]/2 + padX
	top, bottom := boxTop(el)+el.boxH*0.3, boxTop(el)+el.boxH*0.7
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, ei), From: e.From, To: e.To, Events: e.Events(), Rules: ruleNames(e),
		Title: e.From + " → " + e.To + "\n" + e.RuleText()}
	w.Path = []pt{{boxRight, top}, {boxRight + loopReach, top - 6}, {boxRight + loopReach, bottom + 6}, {boxRight + arrowLen, bottom}}
	tip := pt{boxRight, bottom}
	w.Arrow = [3]pt{tip, {tip.X + arrowLen, tip.Y - arrowHalfWide}, {tip.X + arrowLen, tip.Y + arrowHalfWide}}
	w.Label = wrap(e.Events(), ", ", labelChars)
	for _, l := range w.Label {
		x, _ := measure(l, labelSize)
		w.Widths = append(w.Widths, x)
	}
	w.LX = boxRight + loopReach + 4
	w.LY = el.y + (el.h-float64(len(w.Label))*labelSize*lineHeight)/2
	return w
}

// assignPorts spreads the ends of the edges meeting one side of a box
// along it, in the order of where they come from, so that edges stay
// apart up to the box instead of meeting in one point.
func assignPorts(es []segEdge, all []*elem, nodeElem []*elem) {
	type end struct {
		x  float64 // where the edge comes from
		at *float64
	}
	sides := map[*elem]map[bool][]end{} // box -> top? -> ends
	add := func(el *elem, top bool, from float64, at *float64) {
		if sides[el] == nil {
			sides[el] = map[bool][]end{}
		}
		sides[el][top] = append(sides[el][top], end{from, at})
	}
	for i := range es {
		se := &es[i]
		src, dst := nodeElem[se.from], nodeElem[se.to]
		first, last := all[se.chain[0]], all[se.chain[len(se.chain)-1]]
		if se.flat {
			above := first.y < src.y
			add(src, above, first.x, &se.srcX)
			add(dst, above, first.x, &se.dstX)
			continue
		}
		add(src, false, first.x, &se.srcX)
		add(dst, true, last.x, &se.dstX)
	}
	for el, bySide := range sides {
		w := (el.widths[0] + 2*padX) * 0.7
		for _, ends := range bySide {
			sort.SliceStable(ends, func(i, j int) bool { return ends[i].x < ends[j].x })
			for i, e := range ends {
				*e.at = el.x
				if len(ends) > 1 {
					*e.at = el.x - w/2 + w*(float64(i)+0.5)/float64(len(ends))
				}
			}
		}
	}
}

// ruleNames lists an edge's rules once each, in the order first drawn.
func ruleNames(e graph.Edge) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range e.Moves {
		for _, r := range m.Rules {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}
