package render

import "github.com/resetpolicy/resetpolicy/engine/graph"

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
