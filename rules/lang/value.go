package lang

import (
	"fmt"
	"math"
	"strconv"
)

// Type is the static type of a fact, slot, param or expression.
type Type uint8

const (
	Invalid Type = iota
	Bool
	Int // integers (ints, times); stored as float64, exact up to 2^53
	Float
	String
	ListNum
	ListStr
	Object // a JSON object with untyped members (a tool's arguments)
	Any    // a member of an Object
)

func (t Type) String() string {
	switch t {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "number"
	case String:
		return "string"
	case ListNum:
		return "list(number)"
	case ListStr:
		return "list(string)"
	case Object:
		return "object"
	case Any:
		return "any"
	}
	return "invalid"
}

// Numeric reports whether values of t are held in Value.Num.
func (t Type) Numeric() bool { return t == Int || t == Float }

// Value is one fact, slot or param value. Which field is meaningful follows
// from the static type of the place that holds it; K is set only where the
// type is not static (members of an Object).
//
// Enum strings also carry their index in the enum in Num, so that a state
// match or an equality with a literal compares numbers, not strings.
type Value struct {
	Num  float64
	Str  string
	Bool bool
	K    Type
	// X holds a list ([]float64, []string) or an object (map[string]any).
	X any
}

// NumList returns a list(number) value's elements.
func (v Value) NumList() []float64 { l, _ := v.X.([]float64); return l }

// StrList returns a list(string) value's elements.
func (v Value) StrList() []string { l, _ := v.X.([]string); return l }

// Object returns an object value's members.
func (v Value) Object() map[string]any { m, _ := v.X.(map[string]any); return m }

// EnumValue is the value of an enum string: the string and its index.
func EnumValue(enum []string, s string) (Value, bool) {
	for i, e := range enum {
		if e == s {
			return Value{Str: s, Num: float64(i)}, true
		}
	}
	return Value{Str: s}, false
}

// Frame is what an expression reads while a decision runs.
//
// Build one with NewFrame or Begin: Facts and Bits go together, and a
// frame with facts but no bits would read every bool fact as false.
type Frame struct {
	Facts []Value // the event's facts
	State []Value
	// Bits has bit i set when Facts[i] is a true bool, for i < MaxBitFacts:
	// a guard reading bool facts tests them all in one mask (see BitTest)
	// without touching the facts' memory.
	Bits uint64
	// Codes holds, 4 bits each, the enum index of Facts[i] for i <
	// MaxCodeFacts (see FactCodes), for comparisons of enum facts with
	// literals that read no fact.
	Codes uint64
	// Err is set by an expression that cannot produce a value (an index out
	// of range, int("x"), a value over its size bound, a decision over its
	// work budget); the caller rejects the event.
	Err error
	// Memo holds the derived values computed for the current event, by
	// Binding.Memo: a derived value is computed at most once per event,
	// however many expressions read it. Begin invalidates them all.
	Memo []Memo
	gen  uint64
	// Work is what string operations have built or scanned in this
	// decision, in bytes; past MaxWorkBytes the decision fails.
	Work int
}

// Memo is one memoised derived value.
type Memo struct {
	gen uint64
	b   bool
	n   float64
	s   string
}

// Begin prepares the frame for one event: its facts, the state before it,
// no error, no work done, no derived value known.
func (f *Frame) Begin(event, state []Value) {
	f.BeginPacked(event, state, Pack(event))
}

// BeginPacked is Begin for a caller that holds the event's Pack already.
func (f *Frame) BeginPacked(event, state []Value, p Packed) {
	f.Facts, f.State, f.Err, f.Work, f.Bits, f.Codes = event, state, nil, 0, p.Bits, p.Codes
	f.gen++
}

// Packed is what a frame holds of an event's facts besides the facts:
// their bools as bits and their enum indexes as 4-bit codes.
type Packed struct{ Bits, Codes uint64 }

// Pack packs an event's facts for a frame.
func Pack(facts []Value) Packed { return Packed{FactBits(facts), FactCodes(facts)} }

// SetBit updates p for fact i now holding a value whose Bool is b, as
// Pack would pack it. A fact's bit is its Bool and its code its Num, so a
// decoder sets only the half its fact's type can change (SetCode is the
// other).
func (p *Packed) SetBit(i int, b bool) {
	if i < MaxBitFacts {
		p.Bits &^= 1 << uint(i)
		if b {
			p.Bits |= 1 << uint(i)
		}
	}
}

// SetCode is SetBit's other half, for a value's Num.
func (p *Packed) SetCode(i int, n float64) {
	if i < MaxCodeFacts {
		p.Codes &^= 15 << uint(4*i)
		if n >= 0 && n < MaxCodeEnum {
			p.Codes |= uint64(n) << uint(4*i)
		}
	}
}

// MaxCodeFacts is how many of an event's first facts Frame.Codes holds;
// MaxCodeEnum is the largest enum it holds.
const (
	MaxCodeFacts = 16
	MaxCodeEnum  = 16
)

// FactCodes packs the low 4 bits of the first MaxCodeFacts facts' Num,
// fact i at bit 4i. For an enum fact of at most MaxCodeEnum values that is
// its index; for other facts the bits mean nothing, and no program reads
// them, so it needs no types either.
func FactCodes(facts []Value) uint64 {
	var codes uint64
	for i := range min(len(facts), MaxCodeFacts) {
		n := facts[i].Num
		if n >= 0 && n < MaxCodeEnum {
			codes |= uint64(n) << uint(4*i)
		}
	}
	return codes
}

// codeReadable reports whether fact i of an enum of n values is in Codes.
func codeReadable(i, n int) bool { return i < MaxCodeFacts && n <= MaxCodeEnum }

// NewFrame is a frame over an event's facts and a state, with no memo of
// derived values.
func NewFrame(facts, state []Value) Frame {
	var f Frame
	f.Begin(facts, state)
	return f
}

// MaxBitFacts is how many of an event's first facts Frame.Bits holds.
const MaxBitFacts = 64

// FactBits packs the bool facts among the first MaxBitFacts of facts, bit
// i for facts[i]. A fact of another type holds false in Bool, so it needs
// no type to tell them apart.
func FactBits(facts []Value) uint64 {
	var bits uint64
	for i := range min(len(facts), MaxBitFacts) {
		if facts[i].Bool {
			bits |= 1 << uint(i)
		}
	}
	return bits
}

// BitTest is a conjunction of bool facts and their negations, true when
// Frame.Bits&Mask == Want.
type BitTest struct{ Mask, Want uint64 }

// Test evaluates the conjunction.
func (t BitTest) Test(f *Frame) bool { return f.Bits&t.Mask == t.Want }

func (f *Frame) fail(format string, args ...any) {
	if f.Err == nil {
		f.Err = fmt.Errorf(format, args...)
	}
}

// BoundError is a value over MaxValueBytes or a decision over
// MaxWorkBytes. At load, a constant that would break a bound is an error
// of the policy; at decide time the event is rejected.
type BoundError struct{ Msg string }

func (e *BoundError) Error() string { return e.Msg }

func (f *Frame) failBound(format string, args ...any) {
	if f.Err == nil {
		f.Err = &BoundError{Msg: fmt.Sprintf(format, args...)}
	}
}

// charge counts n bytes of string work done by the expression src; it
// reports false, failing the frame, when the decision is over its budget
// (or already failed), so the caller builds nothing more.
func (f *Frame) charge(n int, src fmt.Stringer) bool {
	f.Work += n
	if f.Work > MaxWorkBytes {
		f.failBound("%s: the decision exceeds its work budget of %d MiB of string operations", src, MaxWorkBytes>>20)
		return false
	}
	return true
}

// Interface returns v as a plain Go value of type t (bool, float64, string,
// []float64, []string, map[string]any) for JSON and display.
func (v Value) Interface(t Type) any {
	switch t {
	case Bool:
		return v.Bool
	case Int, Float:
		return v.Num
	case String:
		return v.Str
	case ListNum:
		return v.NumList()
	case ListStr:
		return v.StrList()
	case Object:
		return v.Object()
	case Any:
		return anyOf(v)
	}
	return nil
}

// FromInterface converts a plain Go value to a Value of type t; ok is false
// when x does not have that type. Integral checks apply to Int.
func FromInterface(t Type, x any) (Value, bool) {
	switch t {
	case Bool:
		b, ok := x.(bool)
		return Value{Bool: b}, ok
	case Int, Float:
		var f float64
		switch n := x.(type) {
		case float64:
			f = n
		case int:
			f = float64(n)
		case int64:
			f = float64(n)
		default:
			return Value{}, false
		}
		if t == Int && (f != math.Trunc(f) || math.IsInf(f, 0)) {
			return Value{}, false
		}
		return Value{Num: f}, !math.IsNaN(f)
	case String:
		s, ok := x.(string)
		return Value{Str: s}, ok
	case Object:
		if x == nil {
			return Value{}, true
		}
		m, ok := x.(map[string]any)
		return Value{X: m}, ok
	case ListNum:
		switch l := x.(type) {
		case []float64:
			return Value{X: l}, true
		case []any:
			out := make([]float64, len(l))
			for i, e := range l {
				f, ok := e.(float64)
				if !ok {
					return Value{}, false
				}
				out[i] = f
			}
			return Value{X: out}, true
		}
	case ListStr:
		switch l := x.(type) {
		case []string:
			return Value{X: l}, true
		case []any:
			out := make([]string, len(l))
			for i, e := range l {
				s, ok := e.(string)
				if !ok {
					return Value{}, false
				}
				out[i] = s
			}
			return Value{X: out}, true
		}
	}
	return Value{}, false
}

// dyn converts a member of an Object to a Value with its kind set.
func dyn(x any) Value {
	switch v := x.(type) {
	case bool:
		return Value{Bool: v, K: Bool}
	case float64:
		return Value{Num: v, K: Float}
	case string:
		return Value{Str: v, K: String}
	case map[string]any:
		return Value{X: v, K: Object}
	}
	return Value{}
}

func anyOf(v Value) any {
	switch v.K {
	case Bool:
		return v.Bool
	case Float, Int:
		return v.Num
	case String:
		return v.Str
	case Object:
		return v.Object()
	}
	return nil
}

// FormatNum prints a number the way policies and JSON show it: integers
// without a fraction.
func FormatNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
