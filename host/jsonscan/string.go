package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

const (
	ones    = 0x0101010101010101
	highs   = 0x8080808080808080
	sevens  = 0x7F7F7F7F7F7F7F7F
	quotes  = '"' * ones
	slashes = '\\' * ones
	us      = 'u' * ones
	ns      = 'n' * ones
	ts      = 't' * ones
	spaces  = ' ' * ones
	// ctrlAdd takes a byte's low seven bits to 0x80 or past exactly when
	// they are 0x20 or more (see ctrl).
	ctrlAdd = 0x60 * ones
)

// ctrl has the high bit set in every byte of x below 0x20, a raw control
// character, which a JSON string may not hold; no carry runs between
// bytes (0x7F + 0x60 < 0x100).
func ctrl(x uint64) uint64 { return ^((x&sevens + ctrlAdd) | x) & highs }

// equal has the high bit set in every byte of x that is the byte of b
// (b a byte times ones), and in no other: unlike the shorter test with a
// subtraction, no borrow runs from one byte into the next.
func equal(x, b uint64) uint64 {
	t := x ^ b
	return ^((t&sevens + sevens) | t) & highs
}

// wide is what the bytes of x that are not ASCII add to their count in
// UTF-16 units: nothing for a byte that starts a character, one less for
// each continuation byte (10xxxxxx), one more for each four-byte lead
// (11110xxx), whose character is a surrogate pair.
func wide(x uint64) int64 {
	if x&highs == 0 {
		return 0
	}
	cont := x & highs &^ (x << 1)
	lead := x & (x << 1) & (x << 2) & (x << 3) &^ (x << 4) & highs
	return count(lead) - count(cont)
}

// count is the number of bytes flagged in m, a word with at most the
// high bit of each byte set: a multiplication sums the eight bits into
// the top byte. (bits.OnesCount64 is a call on a processor the build does
// not assume to have POPCNT, and a call in the scan's loop costs it its
// registers.)
func count(m uint64) int64 { return int64((m >> 7) * ones >> 56) }

// wideByte is wide of one byte.
func wideByte(c byte) int64 {
	switch {
	case c&0xC0 == 0x80:
		return -1
	case c&0xF8 == 0xF0:
		return 1
	}
	return 0
}

// scanString finds the end of the string whose body starts at s[i] (the
// index of its closing quote: the first quote not escaped by a
// backslash, as fastjson finds it) and measures its body as EscapedLen
// does, in the same pass: 64 bytes at a time when blocks says so (the
// Doc's text is long enough, and the build and the processor have a
// block scan, scanBlocks), then eight bytes at a time (words), a word
// whose backslashes escape ASCII bytes other than u included. In words,
// a run of backslashes is read a byte at a time; a \u escape, which
// EscapedLen reads as six bytes whatever they are, sends the rest to the
// two-pass reading: find the end, then EscapedLen.
func scanString(s []byte, i int, blocks blockLevel) (end int, n int64, esc, ok bool) {
	start := i
	var carry uint64
	if blocks != noBlocks && len(s)-i >= 64 {
		j, m, c, f := scanBlocks(&s[i], len(s)-i, blocks == avx2Blocks)
		esc = f&escFlag != 0
		switch step(f) {
		case closed:
			return i + j, m, esc, true
		case slow:
			return slowString(s, start)
		}
		i, n, carry = i+j, m, c
	}
	for {
		j, m, c, st, sawEsc := words(s, i, carry)
		esc = esc || sawEsc
		n += m
		i, carry = j, c
		switch st {
		case closed:
			return i, n, esc, true
		case slow:
			return slowString(s, start)
		case run:
			var sawEsc bool
			if i, n, carry, st, sawEsc = bytesOf(s, i, i+8, n, carry); st != more {
				return finish(s, start, i, n, true, st)
			}
			esc = esc || sawEsc
			continue
		}
		// Fewer than eight bytes are left.
		i, n, _, st, sawEsc := bytesOf(s, i, len(s), n, carry)
		if st == more {
			return len(s), 0, true, false
		}
		return finish(s, start, i, n, esc || sawEsc || carry != 0, st)
	}
}

// words reads s from i a word at a time, as long as each holds no run
// of backslashes and no escaped u or byte that is not ASCII, and returns
// where it stopped, the count of the bytes it read, the carry into the
// next word, and why it stopped: at the closing quote (i is the quote),
// at a word for bytesOf (run), at an escape for EscapedLen (slow), or
// with fewer than eight bytes left (more), and whether it met a
// backslash. carry is the high bit of a word's first byte when a
// backslash ends the word before it: that byte is escaped. It calls
// nothing, so that its values stay in registers.
func words(s []byte, i int, carry uint64) (int, int64, uint64, step, bool) {
	var n int64
	var seen uint64
	if i < 0 {
		return i, 0, carry, more, false
	}
	// The words are read through a pointer: indexing the slice costs a
	// bound test and a slice for each, about a quarter of a word's work.
	// i stays at most len(s)-8, so every word read is inside s.
	p := unsafe.Pointer(unsafe.SliceData(s))
	for last := len(s) - 8; i <= last; i += 8 {
		x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
		// Most words hold neither a quote nor a backslash, and most are
		// ASCII: one test for the three, exact about whether there is
		// any (the borrow that makes the subtraction flag more bytes than
		// match runs only from a byte that matches).
		tq, tb := x^quotes, x^slashes
		if ((tq-ones)&^tq|(tb-ones)&^tb|(x-spaces)&^x|x)&highs|carry == 0 {
			n += 8
			continue
		}
		q, b := equal(x, quotes), equal(x, slashes)
		seen |= b
		if b&(b<<8|carry) != 0 {
			return i, n, carry, run, seen != 0
		}
		e := b<<8 | carry
		// An escaped byte that is u, or not ASCII, is EscapedLen's case
		// to settle; so are a raw control character and an escape other
		// than \" \\ \n \t, for the two passes to check.
		if e&(x|equal(x, us)) != 0 {
			return i, n, carry, slow, true
		}
		bad := ctrl(x)
		if e != 0 {
			bad |= e &^ (q | b | equal(x, ns) | equal(x, ts))
		}
		if q &^= e; q != 0 {
			k := bits.TrailingZeros64(q) / 8
			m := uint64(1)<<(8*k) - 1
			if bad&m != 0 {
				return i, n, carry, slow, true
			}
			// Each backslash and the byte it escapes are one unit.
			return i + k, n + int64(k) - count(b&m) + wide(x&m), 0, closed, seen != 0
		}
		if bad != 0 {
			return i, n, carry, slow, true
		}
		n += 8 - count(b) + wide(x)
		carry = b >> 56
	}
	return i, n, carry, more, seen != 0
}

type step uint8

// blockLevel is the block scan a text's strings take: none (eight bytes
// at a time), or 64 bytes a block with SSE2 or with AVX2.
type blockLevel uint8

const (
	noBlocks blockLevel = iota
	sse2Blocks
	avx2Blocks
)

// blockState is the block scan the processor can run, plus one: 0 not
// asked yet. The processor is asked at the first long text, not at
// start-up: in a virtual machine CPUID exits to the hypervisor, about 15
// µs here, which every process of the binary would pay.
var blockState atomic.Uint32

func blocksHere() blockLevel {
	b := blockState.Load()
	if b == 0 {
		b = uint32(blockScan()) + 1
		blockState.Store(b)
	}
	return blockLevel(b - 1)
}

// escFlag is the bit of scanBlocks's flags that says it met a backslash;
// the low byte is its step.
const escFlag = 0x100

const (
	more   step = iota // no end yet
	closed             // the closing quote is at i
	slow               // an escape for EscapedLen: read the string in two passes
	run                // a run of backslashes: the word byte by byte
)

func finish(s []byte, start, i int, n int64, esc bool, st step) (int, int64, bool, bool) {
	if st == slow {
		return slowString(s, start)
	}
	return i, n, esc, true
}

// bytesOf is scanString's reading of s[i:j], a byte at a time; it also
// reports whether it met a backslash.
func bytesOf(s []byte, i, j int, n int64, carry uint64) (_ int, _ int64, _ uint64, _ step, esc bool) {
	escaped := carry != 0
	for ; i < j; i++ {
		c := s[i]
		if escaped {
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default: // u, and what is no escape, for the two passes
				return i, n, 0, slow, esc
			}
			// The escape is one unit, as EscapedLen counts it, whatever
			// the byte (one that is not ASCII too: EscapedLen passes it
			// over with the backslash).
			escaped = false
			n++
			continue
		}
		switch c {
		case '"':
			return i, n, 0, closed, esc
		case '\\':
			escaped, esc = true, true
			continue
		}
		if c < 0x20 {
			return i, n, 0, slow, esc
		}
		n += 1 + wideByte(c)
	}
	if escaped {
		return i, n, 0x80, more, esc
	}
	return i, n, 0, more, esc
}

// slowString is scanString in two passes; a body that is not strict
// JSON (a raw control character, an unknown escape, a short \u) is
// measured as -1, for the caller to refuse or measure leniently.
func slowString(s []byte, i int) (int, int64, bool, bool) {
	end, ok := stringEnd(s, i)
	if !ok {
		return len(s), 0, true, false
	}
	if !strictBody(s[i:end], true) {
		return end, -1, true, true
	}
	return end, EscapedLen(s[i:end]), true, true
}

// strictBody reports whether a string literal's body is strict JSON: no
// byte below 0x20, and each backslash one of the escapes \" \\ \/ \b
// \f \n \r \t or \u with four hex digits. esc says whether it has a
// backslash at all.
func strictBody(b []byte, esc bool) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < 0x20 {
			return false
		}
		if c != '\\' || !esc {
			continue
		}
		if i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+6 > len(b) {
				return false
			}
			for _, h := range b[i+2 : i+6] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return false
				}
			}
			i += 5
		default:
			return false
		}
	}
	return true
}

// stringEnd is fastjson's way to the end of a string whose body starts at
// s[i]: the next quote preceded by an even number of backslashes.
func stringEnd(s []byte, i int) (int, bool) {
	for {
		n := bytes.IndexByte(s[i:], '"')
		if n < 0 {
			return len(s), false
		}
		q := i + n
		k := q
		for k > i && s[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q, true
		}
		i = q + 1
	}
}

// scanKey finds the end of an object key whose body starts at s[i], and
// reports a key with a backslash or a control character as escaped: keys
// are short, and most have no escape, so a word at a time finds the
// first quote or backslash (most keys fit in one or two), and the bytes
// the last few words do not cover, one at a time.
func scanKey(s []byte, i int) (end int, esc, ok bool) {
	j := i
	if j >= 0 {
		p := unsafe.Pointer(unsafe.SliceData(s))
		for last := len(s) - 8; j <= last; j += 8 {
			x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, j))[:])
			if m := equal(x, quotes) | equal(x, slashes) | ctrl(x); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				if s[j] == '"' {
					return j, false, true
				}
				// A backslash, or a control character the caller checks
				// as it checks escapes.
				end, ok := stringEnd(s, i)
				return end, true, ok
			}
		}
	}
	for ; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j, false, true
		case c == '\\' || c < 0x20:
			end, ok := stringEnd(s, i)
			return end, true, ok
		}
	}
	return len(s), false, false
}

// EscapedLen is the JavaScript length of the string a JSON string
// literal's body (without its quotes) decodes to: each escape is one
// UTF-16 unit (a \uXXXX of a surrogate pair one of its two), everything
// else counted as UTF-16 counts it (a four-byte character two units, any
// other one). One pass, eight bytes at a time up to each backslash.
func EscapedLen(b []byte) int64 {
	n := int64(len(b))
	for i := 0; i < len(b); {
		if i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			// The bytes before the first backslash (all eight if there
			// is none) are counted at once: the lowest byte the test
			// flags is the first backslash, exactly.
			k := 8
			if t := x ^ slashes; (t-ones)&^t&highs != 0 {
				k = bits.TrailingZeros64((t-ones)&^t&highs) / 8
				x &= 1<<(8*k) - 1
			}
			n += wide(x)
			if i += k; k == 8 {
				continue
			}
		}
		switch c := b[i]; {
		case c == '\\' && i+1 < len(b):
			// The escape's bytes are ASCII, each counted one: the
			// escape is one unit.
			if b[i+1] == 'u' {
				n -= 5
				i += 6
			} else {
				n--
				i += 2
			}
			continue
		default:
			n += wideByte(c)
		}
		i++
	}
	return n
}

// TextLen is the length of UTF-8 text as a JavaScript string: UTF-16
// code units, a character beyond the Basic Multilingual Plane counting
// two. It counts the bytes that start a character (every byte but the
// 10xxxxxx continuation bytes) and one more for each four-byte lead
// (11110xxx), eight bytes at a time; for valid UTF-8 that is exact (text
// that is not valid UTF-8 counts about as a decoder's replacement
// characters would).
func TextLen(b []byte) int64 {
	n := int64(len(b))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		n += wide(binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < len(b); i++ {
		n += wideByte(b[i])
	}
	return n
}
