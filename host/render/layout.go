package render

import (
	"fmt"
	"math"
	"sort"

	"github.com/resetpolicy/resetpolicy/engine/graph"
)

// The layout is layered (Sugiyama's method, as Graphviz's dot does it):
// cycles broken by reversing the edges a depth-first walk from the
// initial state meets backwards, states ranked by longest path, edges
// cut into one segment per layer through virtual points (the first one
// carries the edge's label, so labels are laid out like states and do
// not overlap), layers ordered by barycentre sweeps keeping the order
// with the fewest crossings, and x placed by averaging the two
// order-preserving packings around each point's neighbours. Every step
// is bounded by the count of segments, which maxSegments bounds.

const (
	fontSize      = 11.0
	labelSize     = 9.0
	lineHeight    = 1.3
	padX, padY    = 8.0, 5.0
	gapX          = 18.0
	layerGap      = 20.0
	margin        = 12.0
	labelChars    = 34
	sweeps        = 12
	placePasses   = 8
	dummyWidth    = 6.0
	loopReach     = 18.0
	maxSegments   = 200000
	titleGap      = 10.0
	diagramGap    = 28.0
	arrowLen      = 7.0
	arrowHalfWide = 3.5
)

type pt struct{ X, Y float64 }

// box is one drawn state.
type box struct {
	ID, Title, State   string
	X, Y, W, H         float64 // top-left, size
	Lines              []string
	Widths             []float64
	Initial, Every, NA bool
}

// wire is one drawn edge: a cubic Bézier path (start, then three points
// per piece), an arrowhead and a label.
type wire struct {
	ID, Title, From, To string
	Events              []string
	Path                []pt
	Arrow               [3]pt
	Label               []string
	Widths              []float64
	LX, LY              float64 // the label's top-left
}

type titleText struct {
	Text  string
	X, Y  float64 // baseline start
	Width float64
}

type scene struct {
	W, H   float64
	Titles []titleText
	Boxes  []box
	Wires  []wire
}

// elem is one element of a layer: a state, or a virtual point of an edge.
type elem struct {
	node     int // index into the diagram's nodes, or -1
	edge     int // for virtual points: the index into the edges
	left     float64
	right    float64 // extents from the centre line
	h        float64
	boxH     float64 // a state's box, centred in h (its loop label may be taller)
	x, y     float64 // the centre line; the top
	up, down []int   // neighbour elements in the layers above and below
	pos      int
	idx      int // index in all
	label    []string
	widths   []float64
}

type segEdge struct {
	e        int
	from, to int // diagram node indexes, after reversal: rank[from] < rank[to]
	reversed bool
	flat     bool  // both ends in one layer: an arch through the layer above
	chain    []int // elements from the source to the target
}

// layoutDiagrams lays each diagram out and stacks them.
func layoutDiagrams(ds []*graph.Diagram) (*scene, error) {
	sc := &scene{}
	y := margin
	for i, d := range ds {
		s, err := layoutOne(d, fmt.Sprintf("d%d", i))
		if err != nil {
			return nil, err
		}
		tw, err := measure(d.Title, fontSize+1)
		if err != nil {
			return nil, err
		}
		sc.Titles = append(sc.Titles, titleText{Text: d.Title, X: margin, Y: y + fontSize, Width: tw})
		y += fontSize + titleGap
		for _, b := range s.Boxes {
			b.X += margin
			b.Y += y
			sc.Boxes = append(sc.Boxes, b)
		}
		for _, w := range s.Wires {
			for j := range w.Path {
				w.Path[j].X += margin
				w.Path[j].Y += y
			}
			for j := range w.Arrow {
				w.Arrow[j].X += margin
				w.Arrow[j].Y += y
			}
			w.LX += margin
			w.LY += y
			sc.Wires = append(sc.Wires, w)
		}
		sc.W = math.Max(sc.W, math.Max(s.W, tw)+2*margin)
		y += s.H + diagramGap
	}
	sc.H = y - diagramGap + margin
	return sc, nil
}

func layoutOne(d *graph.Diagram, prefix string) (*scene, error) {
	idx := map[string]int{}
	for i, n := range d.Nodes {
		idx[n.ID] = i
	}
	n := len(d.Nodes)
	// Self-loops are drawn beside their state; the rest are ranked.
	loops := make([][]int, n)
	var es []segEdge
	for i, e := range d.Edges {
		a, okA := idx[e.From]
		b, okB := idx[e.To]
		if !okA || !okB {
			return nil, fmt.Errorf("edge %s -> %s names a state the diagram lacks", e.From, e.To)
		}
		if a == b {
			loops[a] = append(loops[a], i)
			continue
		}
		es = append(es, segEdge{e: i, from: a, to: b})
	}
	rank := levels(d, es, n)

	// Layers: states at even layers, virtual points between.
	var layers [][]*elem
	put := func(layer int, el *elem) int {
		for len(layers) <= layer {
			layers = append(layers, nil)
		}
		layers[layer] = append(layers[layer], el)
		return len(layers[layer]) - 1
	}
	var all []*elem
	nodeElem := make([]*elem, n)
	order := discovery(d, es, n)
	for _, v := range order {
		nd := d.Nodes[v]
		w, err := measure(nd.Label, fontSize)
		if err != nil {
			return nil, err
		}
		el := &elem{node: v, edge: -1, label: []string{nd.Label}, widths: []float64{w}}
		el.left = w/2 + padX
		el.right = el.left
		el.h = fontSize*lineHeight + 2*padY
		el.boxH = el.h
		if len(loops[v]) > 0 {
			var lines []string
			for _, li := range loops[v] {
				lines = append(lines, wrap(d.Edges[li].Events(), ", ", labelChars)...)
			}
			lw := 0.0
			for _, l := range lines {
				x, err := measure(l, labelSize)
				if err != nil {
					return nil, err
				}
				lw = math.Max(lw, x)
			}
			el.right += loopReach + 4 + lw
			el.h = math.Max(el.h, float64(len(lines))*labelSize*lineHeight+2*padY)
		}
		nodeElem[v] = el
		put(2*rank[v], el)
		el.idx = len(all)
		all = append(all, el)
	}
	segments := 0
	for i := range es {
		se := &es[i]
		span := 2*(rank[se.to]-rank[se.from]) - 1
		first := 2*rank[se.from] + 1
		if se.flat {
			// One point, in the label layer above (below, at the top).
			span, first = 1, 2*rank[se.from]-1
			if first < 0 {
				first = 1
			}
		}
		segments += span + 1
		if segments > maxSegments {
			return nil, fmt.Errorf("the layout needs more than %d edge segments; draw fewer slots", maxSegments)
		}
		se.chain = []int{}
		lines := wrap(d.Edges[se.e].Events(), ", ", labelChars)
		for k := 0; k < span; k++ {
			el := &elem{node: -1, edge: i, left: dummyWidth / 2, right: dummyWidth / 2}
			if k == 0 {
				el.label = lines
				for _, l := range lines {
					x, err := measure(l, labelSize)
					if err != nil {
						return nil, err
					}
					el.widths = append(el.widths, x)
					el.right = math.Max(el.right, x+6)
				}
				el.h = float64(len(lines)) * labelSize * lineHeight
			}
			put(first+k, el)
			el.idx = len(all)
			all = append(all, el)
			se.chain = append(se.chain, len(all)-1)
		}
	}
	// Neighbours, by element pointer through the chain.
	link := func(a, b *elem) {
		a.down = append(a.down, b.idx)
		b.up = append(b.up, a.idx)
	}
	for i := range es {
		se := &es[i]
		if se.flat {
			mid := all[se.chain[0]]
			for _, end := range []*elem{nodeElem[se.from], nodeElem[se.to]} {
				if rank[se.from] == 0 {
					link(end, mid)
				} else {
					link(mid, end)
				}
			}
			continue
		}
		prev := nodeElem[se.from]
		for _, c := range se.chain {
			link(prev, all[c])
			prev = all[c]
		}
		link(prev, nodeElem[se.to])
	}
	orderLayers(layers, all)
	placeX(layers, all)
	// y: each layer as tall as its tallest element.
	y := 0.0
	for li, layer := range layers {
		h := 0.0
		for _, el := range layer {
			h = math.Max(h, el.h)
		}
		if li%2 == 1 && h == 0 {
			h = 4
		}
		for _, el := range layer {
			el.y = y + (h-el.h)/2
			if el.node < 0 {
				el.y = y
				el.h = h
			}
		}
		y += h + layerGap
	}
	sc := &scene{H: y - layerGap}
	for _, el := range all {
		sc.W = math.Max(sc.W, el.x+el.right)
	}
	for v, el := range nodeElem {
		nd := d.Nodes[v]
		w := el.widths[0] + 2*padX
		sc.Boxes = append(sc.Boxes, box{ID: fmt.Sprintf("%s-s%d", prefix, v), Title: nd.Label, State: nd.ID,
			X: el.x - w/2, Y: el.y + (el.h-el.boxH)/2, W: w, H: el.boxH, Lines: el.label, Widths: el.widths,
			Initial: nd.Initial, Every: nd.Every, NA: nd.Unreached})
	}
	for i := range es {
		sc.Wires = append(sc.Wires, route(d, &es[i], all, nodeElem, prefix))
	}
	for v, ls := range loops {
		for _, li := range ls {
			sc.Wires = append(sc.Wires, loop(d, li, nodeElem[v], prefix))
		}
	}
	sort.SliceStable(sc.Wires, func(i, j int) bool { return sc.Wires[i].ID < sc.Wires[j].ID })
	return sc, nil
}

// discovery orders states as a breadth-first walk from the first ones
// meets them: the initial order of the layers.
func discovery(d *graph.Diagram, es []segEdge, n int) []int {
	adj := make([][]int, n)
	for _, e := range es {
		adj[e.from] = append(adj[e.from], e.to)
	}
	seen := make([]bool, n)
	var out []int
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		queue := []int{s}
		seen[s] = true
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			out = append(out, v)
			for _, w := range adj[v] {
				if !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
		}
	}
	return out
}

// levels ranks each state by its distance from where a session starts
// (a breadth-first walk from the every-state node and the initial state,
// then from any state not yet met). An edge to a deeper state points
// down; one back to a shallower state is reversed, so a return to the
// start is a short edge up rather than a loop around the drawing; one
// within a level is flat, drawn as an arch through the layer above.
func levels(d *graph.Diagram, es []segEdge, n int) []int {
	adj := make([][]int, n)
	for _, e := range es {
		adj[e.from] = append(adj[e.from], e.to)
	}
	var starts []int
	for i, nd := range d.Nodes {
		if nd.Every {
			starts = append(starts, i)
		}
	}
	for i, nd := range d.Nodes {
		if nd.Initial && !nd.Every {
			starts = append(starts, i)
		}
	}
	for i := 0; i < n; i++ {
		starts = append(starts, i)
	}
	level := make([]int, n)
	for i := range level {
		level[i] = -1
	}
	for _, s := range starts {
		if level[s] >= 0 {
			continue
		}
		level[s] = 0
		queue := []int{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, w := range adj[v] {
				if level[w] < 0 {
					level[w] = level[v] + 1
					queue = append(queue, w)
				}
			}
		}
	}
	for i := range es {
		e := &es[i]
		switch {
		case level[e.from] > level[e.to]:
			e.reversed = true
			e.from, e.to = e.to, e.from
		case level[e.from] == level[e.to]:
			e.flat = true
		}
	}
	return level
}

// orderLayers runs barycentre sweeps, down then up, and keeps the order
// with the fewest crossings.
func orderLayers(layers [][]*elem, all []*elem) {
	number := func() {
		for _, l := range layers {
			for i, el := range l {
				el.pos = i
			}
		}
	}
	number()
	best := crossings(layers, all)
	saved := snapshot(layers)
	for it := 0; it < sweeps && best > 0; it++ {
		down := it%2 == 0
		for k := range layers {
			li := k
			if !down {
				li = len(layers) - 1 - k
			}
			l := layers[li]
			bary := make(map[*elem]float64, len(l))
			for _, el := range l {
				nb := el.up
				if !down {
					nb = el.down
				}
				if len(nb) == 0 {
					bary[el] = float64(el.pos)
					continue
				}
				sum := 0.0
				for _, j := range nb {
					sum += float64(all[j].pos)
				}
				bary[el] = sum / float64(len(nb))
			}
			sort.SliceStable(l, func(i, j int) bool { return bary[l[i]] < bary[l[j]] })
			for i, el := range l {
				el.pos = i
			}
		}
		if c := crossings(layers, all); c < best {
			best, saved = c, snapshot(layers)
		}
	}
	for i := range layers {
		copy(layers[i], saved[i])
	}
	number()
}

func snapshot(layers [][]*elem) [][]*elem {
	out := make([][]*elem, len(layers))
	for i, l := range layers {
		out[i] = append([]*elem(nil), l...)
	}
	return out
}

// crossings counts the crossing segments between adjacent layers, as the
// inversions of the lower ends when sorted by the upper ends.
func crossings(layers [][]*elem, all []*elem) int {
	total := 0
	for _, l := range layers {
		var segs [][2]int
		for _, el := range l {
			for _, j := range el.down {
				segs = append(segs, [2]int{el.pos, all[j].pos})
			}
		}
		sort.Slice(segs, func(i, j int) bool {
			if segs[i][0] != segs[j][0] {
				return segs[i][0] < segs[j][0]
			}
			return segs[i][1] < segs[j][1]
		})
		lower := make([]int, len(segs))
		for i, s := range segs {
			lower[i] = s[1]
		}
		total += inversions(lower)
	}
	return total
}

func inversions(a []int) int {
	if len(a) < 2 {
		return 0
	}
	m := len(a) / 2
	left := append([]int(nil), a[:m]...)
	right := append([]int(nil), a[m:]...)
	n := inversions(left) + inversions(right)
	i, j, k := 0, 0, 0
	for i < len(left) && j < len(right) {
		if right[j] < left[i] {
			a[k] = right[j]
			n += len(left) - i
			j++
		} else {
			a[k] = left[i]
			i++
		}
		k++
	}
	for ; i < len(left); i, k = i+1, k+1 {
		a[k] = left[i]
	}
	for ; j < len(right); j, k = j+1, k+1 {
		a[k] = right[j]
	}
	return n
}

// placeX packs each layer left to right, then moves each element towards
// the mean of its neighbours, keeping the order and the gaps.
func placeX(layers [][]*elem, all []*elem) {
	for _, l := range layers {
		x := 0.0
		for i, el := range l {
			if i > 0 {
				x += l[i-1].right + gapX + el.left
			} else {
				x = el.left
			}
			el.x = x
		}
	}
	for pass := 0; pass < placePasses; pass++ {
		for k := range layers {
			li := k
			if pass%2 == 1 {
				li = len(layers) - 1 - k
			}
			l := layers[li]
			want := make([]float64, len(l))
			for i, el := range l {
				nb := append(append([]int(nil), el.up...), el.down...)
				want[i] = el.x
				if len(nb) > 0 {
					sum := 0.0
					for _, j := range nb {
						sum += all[j].x
					}
					want[i] = sum / float64(len(nb))
				}
			}
			lo := make([]float64, len(l))
			hi := make([]float64, len(l))
			for i := range l {
				lo[i] = want[i]
				if i > 0 {
					lo[i] = math.Max(lo[i], lo[i-1]+l[i-1].right+gapX+l[i].left)
				}
			}
			for i := len(l) - 1; i >= 0; i-- {
				hi[i] = want[i]
				if i < len(l)-1 {
					hi[i] = math.Min(hi[i], hi[i+1]-l[i].right-gapX-l[i+1].left)
				}
			}
			for i, el := range l {
				el.x = (lo[i] + hi[i]) / 2
			}
		}
	}
	minX := math.Inf(1)
	for _, el := range all {
		minX = math.Min(minX, el.x-el.left)
	}
	for _, el := range all {
		el.x -= minX
	}
}

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
