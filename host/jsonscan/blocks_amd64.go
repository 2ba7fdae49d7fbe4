//go:build amd64 && !purego

package jsonscan

import "golang.org/x/sys/cpu"

// haveBlocks: the processor counts bits in one instruction (POPCNT, on
// every x86-64 processor since 2008), which scanBlocks uses; without it
// the scan stays eight bytes at a time.
var haveBlocks = cpu.X86.HasPOPCNT

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
