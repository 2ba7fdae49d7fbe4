package render

import (
	"fmt"

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
	pts := []pt{{src.x, boxBottom(src)}}
	var lab *elem
	for _, c := range se.chain {
		el := all[c]
		if el.label != nil {
			lab = el
		}
		pts = append(pts, pt{el.x, el.y}, pt{el.x, el.y + el.h})
	}
	pts = append(pts, pt{dst.x, boxTop(dst)})
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, se.e), From: e.From, To: e.To, Events: e.Events(),
		Title: e.From + " → " + e.To + "\n" + e.RuleText()}
	if lab != nil {
		w.Label, w.Widths = lab.label, lab.widths
		w.LX, w.LY = lab.x+5, lab.y
	}
	// Leave room for the arrowhead at the entered end.
	if se.reversed {
		pts[0].Y += arrowLen
		tip := pt{src.x, boxBottom(src)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y + arrowLen}, {tip.X + arrowHalfWide, tip.Y + arrowLen}}
	} else {
		last := len(pts) - 1
		pts[last].Y -= arrowLen
		tip := pt{dst.x, boxTop(dst)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y - arrowLen}, {tip.X + arrowHalfWide, tip.Y - arrowLen}}
	}
	w.Path = smooth(pts)
	return w
}

// arch draws a flat edge from its source's side through its point in the
// layer above (or below) to the top (or bottom) of its target.
func arch(e graph.Edge, se *segEdge, mid, src, dst *elem, prefix string) wire {
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, se.e), From: e.From, To: e.To, Events: e.Events(),
		Title: e.From + " → " + e.To + "\n" + e.RuleText(), Label: mid.label, Widths: mid.widths, LX: mid.x + 5, LY: mid.y}
	above := mid.y < src.y
	var a, m, b pt
	if above {
		a, m, b = pt{src.x, boxTop(src)}, pt{mid.x, mid.y + mid.h}, pt{dst.x, boxTop(dst) - arrowLen}
		tip := pt{dst.x, boxTop(dst)}
		w.Arrow = [3]pt{tip, {tip.X - arrowHalfWide, tip.Y - arrowLen}, {tip.X + arrowHalfWide, tip.Y - arrowLen}}
	} else {
		a, m, b = pt{src.x, boxBottom(src)}, pt{mid.x, mid.y}, pt{dst.x, boxBottom(dst) + arrowLen}
		tip := pt{dst.x, boxBottom(dst)}
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
	w := wire{ID: fmt.Sprintf("%s-e%d", prefix, ei), From: e.From, To: e.To, Events: e.Events(),
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
