//go:build amd64 && !purego

package jsonscan

// blockScan: the processor counts bits in one instruction (POPCNT, on
// every x86-64 processor since 2008), which scanBlocks uses; without it
// the scan stays eight bytes at a time. One CPUID asks:
// golang.org/x/sys/cpu would ask the same, but its init costs every
// process of the binary about 40 µs and ten allocations
// (GODEBUG=inittrace=1), serve's start included.
func blockScan() bool { return cpuid1ECX()&(1<<23) != 0 }

// cpuid1ECX is ECX of CPUID leaf 1, the processor's feature bits.
func cpuid1ECX() uint32

// scanBlocks reads the body of a string from p, 64 bytes at a time while
// n-i ≥ 64, with SSE2: it returns as words does (where it stopped, the
// units counted before it, the carry into the next byte, and why it
// stopped), except that a run of backslashes is read in the block (the
// escaped bytes found as simdjson finds them) and the reason and whether
// it met a backslash share flags (the step, and escFlag). See
// blocks_amd64.s.
//
//go:noescape
func scanBlocks(p *byte, n int) (i int, units int64, carry uint64, flags uint64)
