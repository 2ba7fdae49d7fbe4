//go:build amd64 && !purego

package jsonscan

// blockScan says which block scan the processor can run. scanBlocks
// counts bits with POPCNT (on every x86-64 processor since 2008); with
// AVX2 (and the system saving the YMM registers, as XGETBV reports) it
// reads a block in two registers instead of four. Without POPCNT the scan
// stays eight bytes at a time. CPUID asks: golang.org/x/sys/cpu would ask
// the same, but its init costs every process of the binary about 40 µs
// and ten allocations (GODEBUG=inittrace=1), serve's start included.
func blockScan() blockLevel {
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<23) == 0 { // POPCNT
		return noBlocks
	}
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&(osxsave|avx) != osxsave|avx || xgetbv0()&6 != 6 {
		return sse2Blocks
	}
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return sse2Blocks
	}
	if _, b7, _, _ := cpuid(7, 0); b7&(1<<5) == 0 { // AVX2
		return sse2Blocks
	}
	return avx2Blocks
}

// cpuid is the processor's answer to CPUID leaf, sub-leaf sub.
func cpuid(leaf, sub uint32) (ax, bx, cx, dx uint32)

// xgetbv0 is the low half of XCR0: which registers the system saves
// (bits 1 and 2: XMM and YMM).
func xgetbv0() uint32

// scanBlocks reads the body of a string from p, 64 bytes at a time while
// n-i ≥ 64, with SSE2, or AVX2 when avx2 says so: it returns as words
// does (where it stopped, the units counted before it, the carry into
// the next byte, and why it stopped), except that a run of backslashes
// is read in the block (the escaped bytes found as simdjson finds them)
// and the reason and whether it met a backslash share flags (the step,
// and escFlag). See blocks_amd64.s.
//
//go:noescape
func scanBlocks(p *byte, n int, avx2 bool) (i int, units int64, carry uint64, flags uint64)
