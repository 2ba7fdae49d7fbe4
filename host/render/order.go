package render

import (
	"math"
	"sort"
)

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
