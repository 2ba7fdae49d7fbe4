package engine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// checkFact is the one place a fact's value is judged against what the
// fact means, after its type is known to be right. Every way an event is
// built — Decoder (JSON), NewEvent (maps), and any typed constructor —
// calls it, so a bad fact is refused where it enters, with the same
// message whichever way it came:
//
//   - a number is finite (JSON can spell +Inf as 1e999), and an int fact
//     is a whole number within ±2^53, where float64 holds integers exactly;
//   - every int fact of the contract counts something (tokens, the
//     reserve, milliseconds since the epoch, tool results, attempts), so
//     none is negative (intMin);
//   - context_window is at least 1: a window of 0 tokens cannot hold a
//     conversation, and a policy dividing by it would get +Inf;
//   - an object fact (a tool's arguments) holds finite numbers only.
func checkFact(ev *contract.Event, f *contract.Fact, v lang.Value) error {
	switch f.Type {
	case contract.Int:
		n := v.Num
		switch {
		case math.IsNaN(n) || math.IsInf(n, 0):
			return badFact(ev, f, "must be a finite number, not %s", formatNum(n))
		case n != math.Trunc(n) || math.Abs(n) > 1<<53:
			return badFact(ev, f, "must be an int, not %s", formatNum(n))
		case n < intMin(f):
			if intMin(f) == 0 {
				return badFact(ev, f, "must not be negative, not %s", formatNum(n))
			}
			return badFact(ev, f, "must be at least %d, not %s", int64(intMin(f)), formatNum(n))
		}
	case contract.Object:
		if path, n, ok := nonFinite(v.X, f.Name); ok {
			return badFact(ev, f, "must hold finite numbers only, not %s at %s", formatNum(n), path)
		}
	}
	return nil
}

// intMin is the least value an int fact may take.
func intMin(f *contract.Fact) float64 {
	if f.Name == "context_window" {
		return 1
	}
	return 0
}

func badFact(ev *contract.Event, f *contract.Fact, format string, args ...any) error {
	return fmt.Errorf("event %s: fact %q %s", ev.Name, f.Name, fmt.Sprintf(format, args...))
}

// nonFinite finds a NaN or infinite number inside a decoded object.
func nonFinite(x any, path string) (string, float64, bool) {
	switch v := x.(type) {
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return path, v, true
		}
	case map[string]any:
		for k, e := range v {
			if p, n, ok := nonFinite(e, path+"."+k); ok {
				return p, n, ok
			}
		}
	case []any:
		for i, e := range v {
			if p, n, ok := nonFinite(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, n, ok
			}
		}
	}
	return "", 0, false
}

// formatNum writes a number as JSON would, and NaN and infinities by name.
func formatNum(n float64) string {
	switch {
	case math.IsNaN(n):
		return "NaN"
	case math.IsInf(n, 1):
		return "+Inf"
	case math.IsInf(n, -1):
		return "-Inf"
	}
	return string(appendJSONNumber(nil, n))
}
