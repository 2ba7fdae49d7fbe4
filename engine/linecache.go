package engine

import (
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// LineCache writes one session's stream of decisions (eval's lines)
// faster, keeping between lines what the next is likely to write again.
//
// The state: most events change no slot, or one or two, so it keeps each
// slot's member as last written with the value it came from, and writes a
// slot's value again only when it differs; a slot's key, and an enum
// slot's values, are written once. When the session counts no write to
// its state since the last line, the object is copied without a look at
// its slots.
//
// Strings: a policy's rule names and its effects' names and messages are
// the same strings line after line, so the JSON of the longer ones is kept
// in a few pairs of entries, picked by length, the last used first, and
// copied when the same string comes again. An entry holds its string, so
// the memory it keeps is what the last decisions held.
//
// A session does not carry one itself, so many idle sessions in a server
// cost no more for it. A nil *LineCache's writers of strings, arrays and
// effects write the same JSON and keep nothing: json.go's
// AppendStringsJSON, AppendEffectsJSON and Effect.AppendJSON are they.
type LineCache struct {
	s       *Session
	written uint64 // s.written when the state was last written
	vals    []lang.Value
	parts   [][]byte   // per slot, `"name":value`
	keys    []int      // per slot, the length of `"name":` in its part
	enums   [][][]byte // per slot, its enum values' JSON (nil: not an enum)
	whole   []byte     // the object the parts make

	strs [lineCacheSets][2]cachedString
}

// lineCacheSets is how many pairs of strings' JSON a LineCache keeps;
// strings shorter than lineCacheMinString are written each time, which
// costs about what looking them up would.
const (
	lineCacheSets      = 16
	lineCacheMinString = 12
)

type cachedString struct {
	s    string
	json []byte
}

// appendString appends s as AppendJSONString does (c may be nil).
func (c *LineCache) appendString(b []byte, s string) []byte {
	if c == nil || len(s) < lineCacheMinString {
		return AppendJSONString(b, s)
	}
	// An empty entry holds "", which no string kept is.
	set := &c.strs[len(s)%lineCacheSets]
	if set[0].s != s {
		// The second entry moves up, or the first moves down and the
		// second's buffer takes s.
		set[0], set[1] = set[1], set[0]
		if set[0].s != s {
			set[0].s, set[0].json = s, AppendJSONString(set[0].json[:0], s)
		}
	}
	return append(b, set[0].json...)
}

// appendStrings appends a JSON array of strings ([] when empty).
func (c *LineCache) appendStrings(b []byte, ss []string) []byte {
	return AppendJSONArray(b, ss, c.appendString)
}

// appendEffects appends a JSON array of effects ([] when empty).
func (c *LineCache) appendEffects(b []byte, effs []Effect) []byte {
	return AppendJSONArray(b, effs, c.appendEffect)
}

// appendEffect appends {"effect": NAME, ARG: VALUE, …} in argument order.
func (c *LineCache) appendEffect(b []byte, e Effect) []byte {
	b = append(b, `{"effect":`...)
	b = c.appendString(b, e.Name)
	for _, a := range e.Args {
		b = append(b, ',')
		b = c.appendString(b, a.Name)
		b = append(b, ':')
		b = appendJSONValue(b, a.Value, c)
	}
	return append(b, '}')
}

// appendState appends s's state as AppendStateJSON does.
func (c *LineCache) appendState(b []byte, s *Session) []byte {
	if c.s == s && c.whole != nil && c.written == s.written {
		return append(b, c.whole...)
	}
	slots := s.eng.policy.Slots
	if c.s != s || len(c.vals) != len(s.state) {
		c.start(s)
	}
	c.written = s.written
	changed := c.whole == nil
	for i, sl := range slots {
		if v, w := &c.vals[sl.Index], &s.state[sl.Index]; !sameValue(v, w) {
			*v = *w
			p := c.parts[i][:c.keys[i]]
			if c.enums[i] != nil {
				p = append(p, c.enums[i][int(w.Num)]...)
			} else {
				p = s.appendSlotValue(p, sl)
			}
			c.parts[i] = p
			changed = true
		}
	}
	if changed {
		c.whole = append(c.whole[:0], '{')
		for i, p := range c.parts {
			if i > 0 {
				c.whole = append(c.whole, ',')
			}
			c.whole = append(c.whole, p...)
		}
		c.whole = append(c.whole, '}')
	}
	return append(b, c.whole...)
}

// start points the cache at s and writes every slot's member.
func (c *LineCache) start(s *Session) {
	slots := s.eng.policy.Slots
	c.s, c.vals, c.whole = s, make([]lang.Value, len(s.state)), nil
	c.parts, c.keys, c.enums = make([][]byte, len(slots)), make([]int, len(slots)), make([][][]byte, len(slots))
	for i, sl := range slots {
		c.vals[sl.Index] = s.state[sl.Index]
		p := append(AppendJSONString(nil, sl.Name), ':')
		c.keys[i] = len(p)
		c.parts[i] = s.appendSlotValue(p, sl)
		if sl.IsEnum() {
			c.enums[i] = make([][]byte, len(sl.Enum))
			for e, v := range sl.Enum {
				c.enums[i][e] = AppendJSONString(nil, v)
			}
		}
	}
}

// sameValue compares slot values as the JSON shows them (a slot holds no
// list or object).
func sameValue(a, b *lang.Value) bool {
	return a.Num == b.Num && a.Bool == b.Bool && a.Str == b.Str
}
