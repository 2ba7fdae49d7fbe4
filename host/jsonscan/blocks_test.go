package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBlocksAgreeWithWords holds the 64-byte block scan to the scan eight
// bytes at a time, on strings made to meet its cases at every offset of a
// block: escapes and runs of backslashes across a block's end, a quote
// right after one, \u escapes, two- to four-byte characters, bytes that
// are not UTF-8, an escaped byte that is not ASCII, raw control
// characters and escapes JSON does not have, and strings that do not end. Both readings must find the same end, length and escapes.
// Each block scan the processor has runs: SSE2, and AVX2 where it is.
func TestBlocksAgreeWithWords(t *testing.T) {
	eachBlockScan(t, blocksAgreeWithWords)
}

// eachBlockScan runs test with each block scan this build and processor
// have, and skips where there is none.
func eachBlockScan(t *testing.T, test func(*testing.T, blockLevel)) {
	if blocksHere() == noBlocks {
		t.Skip("no block scan on this build or processor")
	}
	for level := sse2Blocks; level <= blocksHere(); level++ {
		t.Run([...]string{"", "sse2", "avx2"}[level], func(t *testing.T) { test(t, level) })
	}
}

func blocksAgreeWithWords(t *testing.T, level blockLevel) {
	pieces := []string{"a", "bcdefgh", " ", "é", "日", "😀", `\"`, `\\`, `\\\\`, `\\\"`, `\n`, `\/`, `\u00e9`, "\\\xc3\xa9", "\xff", "\x80", `"`, `\`,
		// What a strict read refuses, and the escapes the scans take in
		// stride or not: both must send the same strings to the two passes.
		"\x01", "\t", "\x00", "\x1f", `\q`, `\t`, `\r`, `\b`, `\f`, `\u12`}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 40000; n++ {
		var b strings.Builder
		b.WriteString(strings.Repeat("x", rng.IntN(8)))
		for size := rng.IntN(300); b.Len() < size; {
			// Plain runs long enough that whole blocks pass the fast test.
			if rng.IntN(4) == 0 {
				b.WriteString(strings.Repeat("p", rng.IntN(130)))
				continue
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(8) != 0 {
			b.WriteString(`"`)
		}
		b.WriteString(strings.Repeat(" ", rng.IntN(70)))
		s := []byte(b.String())
		for _, at := range []int{0, rng.IntN(8)} {
			if at > len(s) {
				continue
			}
			wEnd, wN, wEsc, wOK := scanString(s, at, noBlocks)
			end, n, esc, ok := scanString(s, at, level)
			// The words may say a string has escapes when a backslash
			// follows its quote in the same word: harmless (Str decodes
			// a text with none). The blocks say it exactly or as the
			// words do, and never miss one.
			exact := ok && bytes.IndexByte(s[at:end], '\\') >= 0
			if end != wEnd || ok != wOK || ok && (n != wN || esc != wEsc && esc != exact || exact && !esc) {
				t.Fatalf("%q from %d: blocks read end %d, length %d, escapes %v, ok %v; words %d, %d, %v, %v",
					s, at, end, n, esc, ok, wEnd, wN, wEsc, wOK)
			}
		}
	}
}

// TestBlockEdges: the cases a random string meets rarely, each placed
// so that its bytes straddle the end of the first block.
func TestBlockEdges(t *testing.T) {
	eachBlockScan(t, blockEdges)
}

func blockEdges(t *testing.T, level blockLevel) {
	pad := func(k int) string { return strings.Repeat("a", k) }
	tail := pad(80)
	for _, body := range []string{
		pad(63) + `\"` + `"`,   // an escaped quote across the block's end
		pad(62) + `\\` + `"`,   // an escaped backslash that ends the block, then the quote
		pad(63) + `\\` + `"`,   // the same, across the end
		pad(61) + `\\\"` + `"`, // a run of three: the quote after it is escaped
		pad(63) + `\u00e9"`,    // a \u escape across the end
		pad(62) + "😀" + `"`,    // a surrogate pair across the end
		pad(64) + `"`,          // the quote first in the second block
		pad(63) + `"`,          // the quote last in the first block
		`"`,                    // the empty string
		pad(127) + `\` + `\` + `"`,
	} {
		s := []byte(body + tail)
		wEnd, wN, wEsc, wOK := scanString(s, 0, noBlocks)
		end, n, esc, ok := scanString(s, 0, level)
		if end != wEnd || n != wN || esc != wEsc || ok != wOK {
			t.Errorf("%q: blocks read %d, %d, %v, %v; words %d, %d, %v, %v", body, end, n, esc, ok, wEnd, wN, wEsc, wOK)
		}
	}
}
