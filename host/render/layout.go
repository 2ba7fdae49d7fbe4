package render

import (
	"fmt"
	"math"
	"sort"

	"github.com/resetpolicy/resetpolicy/engine/graph"
)

// The layout is layered (Sugiyama's method, as Graphviz's dot does it):
// states ranked by their distance from the start, edges pointing back
// reversed (rank.go); edges cut into one segment per layer through
// virtual points, the first carrying the edge's label, so labels are laid
// out like states and do not overlap; layers ordered by barycentre sweeps
// keeping the order with the fewest crossings, and x placed by averaging
// the two order-preserving packings around each point's neighbours
// (order.go); edges drawn as smooth curves through their points
// (route.go). Every step is bounded by the count of segments, which
// maxSegments bounds.

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
	Events, Rules       []string
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
	// srcX, dstX: where the edge meets its boxes (assignPorts).
	srcX, dstX float64
	flat       bool  // both ends in one layer: an arch through the layer above
	chain      []int // elements from the source to the target
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
	assignPorts(es, all, nodeElem)
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
