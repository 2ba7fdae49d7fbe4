package chart

import (
	"fmt"
	"math"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

type kindRun struct {
	kind   replay.Kind
	points []replay.Point
}

// runsByKind cuts a series where its kind changes; each run starts at the
// previous run's last point so the line stays joined.
func runsByKind(pts []replay.Point) []kindRun {
	var out []kindRun
	for i, p := range pts {
		if len(out) == 0 || out[len(out)-1].kind != p.Kind {
			r := kindRun{kind: p.Kind}
			if i > 0 {
				r.points = append(r.points, pts[i-1])
			}
			out = append(out, r)
		}
		out[len(out)-1].points = append(out[len(out)-1].points, p)
	}
	return out
}

// thin keeps at most n points: the first and last, and each bucket's
// highest.
func thin(pts []replay.Point, n int) []replay.Point {
	if len(pts) <= n || n < 3 {
		return pts
	}
	out := make([]replay.Point, 0, n)
	out = append(out, pts[0])
	inner := pts[1 : len(pts)-1]
	buckets := n - 2
	for k := 0; k < buckets; k++ {
		lo, hi := k*len(inner)/buckets, (k+1)*len(inner)/buckets
		if lo >= hi {
			continue
		}
		best := lo
		for j := lo + 1; j < hi; j++ {
			if inner[j].Tokens > inner[best].Tokens {
				best = j
			}
		}
		out = append(out, inner[best])
	}
	return append(out, pts[len(pts)-1])
}

// niceCeil rounds up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// ticks gives about n round values from 0 to top.
func ticks(top float64, n int) []float64 {
	step := niceCeil(top / float64(n))
	var out []float64
	for v := 0.0; v <= top+step/1e6 && len(out) <= 2*n; v += step {
		out = append(out, v)
	}
	return out
}

func tokLabel(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// clip shortens a label to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// thousands writes v with commas between groups of three digits.
func thousands(v int64) string {
	s := fmt.Sprint(v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
