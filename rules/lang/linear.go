package lang

// A comparison of two numbers that are each an event fact, a constant, or
// + - * of those (`remaining <= warning_at`, where remaining is
// `event.context_window - event.tokens` and warning_at `event.reserve +
// param.warning_runway`) is one closure that reads the facts in place:
// it was a closure for the comparison and one for each side, on every
// request.

// linear is a number read in place from the event's facts:
// ca*Facts[i] + k, or, when two, Facts[i] + cb*Facts[j] + k. Each shape
// is built only where it computes exactly what the expression's own
// operators compute, in the same order, up to the sign of a zero, which
// no comparison sees: ca is ±1 or the constant of a product, cb ±1, and
// k is added last, to a form that holds none.
type linear struct {
	two       bool
	i, j      int
	ca, cb, k float64
}

// bare tells that t holds no constant yet, so that one can be added
// exactly as the expression adds it (a constant of 0 added before changes
// only the sign of a zero).
func (t *linear) bare() bool { return t != nil && t.k == 0 }

func (t *linear) at(fs []Value) float64 {
	if t.two {
		return fs[t.i].Num + t.cb*fs[t.j].Num + t.k
	}
	return t.ca*fs[t.i].Num + t.k
}

// factTerm is the linear form of reading event fact i.
func factTerm(i int) *linear { return &linear{i: i, ca: 1} }

// combine is the linear form of l op r, or nil when it has none that
// computes exactly what op does. lk and rk are the sides' values when
// they are constants.
func combine(op string, l, r *linear, lk, rk *float64) *linear {
	single := func(t *linear) bool { return t != nil && !t.two && t.ca == 1 && t.k == 0 }
	switch {
	case single(l) && single(r) && (op == "+" || op == "-"):
		cb := 1.0
		if op == "-" {
			cb = -1
		}
		return &linear{two: true, i: l.i, j: r.i, cb: cb}
	case single(l) && rk != nil:
		switch op {
		case "+":
			return &linear{i: l.i, ca: 1, k: *rk}
		case "-":
			return &linear{i: l.i, ca: 1, k: -*rk}
		case "*":
			return &linear{i: l.i, ca: *rk}
		}
	case lk != nil && single(r):
		switch op {
		case "+":
			return &linear{i: r.i, ca: 1, k: *lk}
		case "-":
			return &linear{i: r.i, ca: -1, k: *lk}
		case "*":
			return &linear{i: r.i, ca: *lk}
		}
	case l.bare() && rk != nil && (op == "+" || op == "-"):
		t := *l
		t.k = *rk
		if op == "-" {
			t.k = -*rk
		}
		return &t
	case lk != nil && r.bare() && op == "+":
		t := *r
		t.k = *lk
		return &t
	}
	return nil
}

// constOf is a numeric node's value when it is a constant, else nil.
func constOf(n cnode) *float64 {
	if n.k != nil {
		return &n.k.Num
	}
	return nil
}

// numTerm is n's linear form, or nil; k is n's value when it is a
// constant.
func numTerm(n cnode) (t *linear, k *float64) {
	if k := constOf(n); k != nil {
		return nil, k
	}
	return n.lin, nil
}

// linearCompare is l op r read in place, or nil when a side has no
// linear form (a constant side needs none).
func linearCompare(op string, l, r cnode) func(*Frame) bool {
	a, ak := numTerm(l)
	b, bk := numTerm(r)
	switch {
	case a != nil && b != nil:
		return compareTerms(op, *a, *b)
	case a != nil && bk != nil:
		return compareConst(op, *a, *bk)
	case ak != nil && b != nil:
		// k op x is x op' k, op' the mirror of op.
		mirror := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
		return compareConst(mirror, *b, *ak)
	}
	return nil
}

func compareTerms(op string, a, b linear) func(*Frame) bool {
	switch op {
	case "<":
		return func(f *Frame) bool { return a.at(f.Facts) < b.at(f.Facts) }
	case "<=":
		return func(f *Frame) bool { return a.at(f.Facts) <= b.at(f.Facts) }
	case ">":
		return func(f *Frame) bool { return a.at(f.Facts) > b.at(f.Facts) }
	case ">=":
		return func(f *Frame) bool { return a.at(f.Facts) >= b.at(f.Facts) }
	case "==":
		return func(f *Frame) bool { return a.at(f.Facts) == b.at(f.Facts) }
	case "!=":
		return func(f *Frame) bool { return a.at(f.Facts) != b.at(f.Facts) }
	}
	return nil
}

func compareConst(op string, a linear, k float64) func(*Frame) bool {
	switch op {
	case "<":
		return func(f *Frame) bool { return a.at(f.Facts) < k }
	case "<=":
		return func(f *Frame) bool { return a.at(f.Facts) <= k }
	case ">":
		return func(f *Frame) bool { return a.at(f.Facts) > k }
	case ">=":
		return func(f *Frame) bool { return a.at(f.Facts) >= k }
	case "==":
		return func(f *Frame) bool { return a.at(f.Facts) == k }
	case "!=":
		return func(f *Frame) bool { return a.at(f.Facts) != k }
	}
	return nil
}
