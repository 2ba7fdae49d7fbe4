package verify

import (
	"slices"

	"github.com/resetpolicy/resetpolicy/rules"
)

// checkLoops finds, per no_loop property, a cycle of abstract states with
// no new input in which the effect is emitted: an edge emitting it whose
// two ends lie in one strongly connected component of the input-free
// graph. The counterexample is a lasso: the shortest way to the edge, the
// edge, and the shortest way back to its start.
func (m *model) checkLoops() {
	for pi, pr := range m.props {
		if pr.Kind != rules.NoLoop {
			continue
		}
		comp := m.sccs(pi, pr)
		best, bestLen := [2]int{-1, -1}, -1
		for from, outs := range m.edges {
			for to, e := range outs {
				if !e.continues[pi] || comp[from] != comp[to] {
					continue
				}
				if l := m.nodes[from].depth; bestLen < 0 || l < bestLen || (l == bestLen && [2]int{from, to}[0] < best[0]) {
					best, bestLen = [2]int{from, to}, l
				}
			}
		}
		if bestLen < 0 {
			continue
		}
		from, to := best[0], best[1]
		steps := m.path(from)
		steps = append(steps, m.edges[from][to].st)
		back := m.shortest(pi, pr, to, from, comp)
		steps = append(steps, back...)
		// Back at the cycle's start, its first step once more: the run
		// block's assert is on that decision, which emits the effect again,
		// so the run fails for as long as the loop is there.
		steps = append(steps, m.edges[from][to].st)
		m.found[pr.Name] = &Finding{Name: pr.Name, Kind: KindProperty,
			Message: "a cycle without new input keeps emitting " + pr.Effect + "; the trace goes round it once and ends on its first step again",
			Trace:   m.trace(steps), LoopStart: len(m.path(from)), Loop: true, Assert: noneAssert(pr)}
		m.order = append(m.order, pr.Name)
	}
}

func (m *model) inputFree(pi int, pr *rules.Property, from int) []int {
	var out []int
	for to, e := range m.edges[from] {
		if e.free[pi] {
			out = append(out, to)
		}
	}
	slices.Sort(out)
	return out
}

// sccs labels each node with its strongly connected component (Tarjan,
// iterative so a long chain cannot overflow the stack).
func (m *model) sccs(pi int, pr *rules.Property) []int {
	n := len(m.nodes)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	onStack := make([]bool, n)
	var stack []int
	next, label := 0, 0
	type frame struct {
		v    int
		succ []int
		k    int
	}
	for s := 0; s < n; s++ {
		if index[s] >= 0 {
			continue
		}
		work := []frame{{v: s, succ: m.inputFree(pi, pr, s)}}
		index[s], low[s] = next, next
		next++
		stack = append(stack, s)
		onStack[s] = true
		for len(work) > 0 {
			f := &work[len(work)-1]
			if f.k < len(f.succ) {
				w := f.succ[f.k]
				f.k++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{v: w, succ: m.inputFree(pi, pr, w)})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = label
					if w == v {
						break
					}
				}
				label++
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				low[p] = min(low[p], low[v])
			}
		}
	}
	return comp
}

// shortest finds the input-free steps from a to b within a's component.
func (m *model) shortest(pi int, pr *rules.Property, a, b int, comp []int) []*step {
	if a == b {
		return nil
	}
	prev := map[int]int{a: -1}
	queue := []int{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range m.inputFree(pi, pr, v) {
			if _, seen := prev[w]; seen || comp[w] != comp[a] {
				continue
			}
			prev[w] = v
			if w == b {
				var out []*step
				for x := b; x != a; x = prev[x] {
					out = append(out, m.edges[prev[x]][x].st)
				}
				slices.Reverse(out)
				return out
			}
			queue = append(queue, w)
		}
	}
	return nil
}
