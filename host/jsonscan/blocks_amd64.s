//go:build amd64 && !purego

#include "textflag.h"

// The block scan of a string's body (see scanBlocks in blocks_amd64.go),
// 64 bytes a block in four SSE2 registers X0–X3:
//
//   - A block with no quote, no backslash and no byte that is not ASCII,
//     and not escaped by the block before it, counts 64 units: one test.
//   - Any other block is read as bit masks, one bit a byte: quotes (Q),
//     backslashes (B), u bytes (U), bytes that are not ASCII (H),
//     continuation bytes 10xxxxxx (C) and four-byte leads 11110xxx (L).
//     The escaped bytes E are found as simdjson finds them (an odd run of
//     backslashes escapes the byte after it, an even one does not), with
//     the carry into the next block. The first quote not in E closes the
//     string. An escaped u or byte that is not ASCII before that quote
//     (or in a block the string does not end in) is EscapedLen's case:
//     the scan stops (slow). The units of the bytes before it, or of
//     the whole block, are the bytes less one for each escape (a
//     backslash and the byte it escapes are one unit), less C, plus L
//     (a four-byte character is a surrogate pair), as wide counts them.
//
// Registers: SI the block, DI the last block's start, R8 the body's
// start, R9 the units, R10 the carry (1: the block's first byte is
// escaped), R11 the escapes met, R13 H; AX BX CX DX R12 scratch; X8–X13
// the bytes compared with, broadcast.

// MASK sets dst to one bit for each byte of X0–X3 whose compare with the
// broadcast cmp (PCMPEQB) is true.
#define MASK(cmp, dst) \
	MOVO X0, X4; PCMPEQB cmp, X4; PMOVMSKB X4, dst; \
	MOVO X1, X4; PCMPEQB cmp, X4; PMOVMSKB X4, R12; SHLQ $16, R12; ORQ R12, dst; \
	MOVO X2, X4; PCMPEQB cmp, X4; PMOVMSKB X4, R12; SHLQ $32, R12; ORQ R12, dst; \
	MOVO X3, X4; PCMPEQB cmp, X4; PMOVMSKB X4, R12; SHLQ $48, R12; ORQ R12, dst

// HIGH sets dst to one bit for each byte of X0–X3 that is not ASCII.
#define HIGH(dst) \
	PMOVMSKB X0, dst; \
	PMOVMSKB X1, R12; SHLQ $16, R12; ORQ R12, dst; \
	PMOVMSKB X2, R12; SHLQ $32, R12; ORQ R12, dst; \
	PMOVMSKB X3, R12; SHLQ $48, R12; ORQ R12, dst

// CONT1 and LEAD1 flag, in X4, the continuation bytes (as signed bytes,
// below -64) and the four-byte leads (above -17 and below -8) of x.
#define CONT1(x) MOVO X11, X4; PCMPGTB x, X4
#define LEAD1(x) MOVO x, X4; PCMPGTB X12, X4; MOVO X13, X5; PCMPGTB x, X5; PAND X5, X4

#define BITS(F, dst) \
	F(X0); PMOVMSKB X4, dst; \
	F(X1); PMOVMSKB X4, R12; SHLQ $16, R12; ORQ R12, dst; \
	F(X2); PMOVMSKB X4, R12; SHLQ $32, R12; ORQ R12, dst; \
	F(X3); PMOVMSKB X4, R12; SHLQ $48, R12; ORQ R12, dst

#define BROADCAST(b, x) MOVQ $b, AX; MOVQ AX, x; PUNPCKLQDQ x, x

// func scanBlocks(p *byte, n int) (i int, units int64, carry uint64, flags uint64)
TEXT ·scanBlocks(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DI
	MOVQ SI, R8
	LEAQ -64(SI)(DI*1), DI
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	BROADCAST(0x2222222222222222, X8)  // "
	BROADCAST(0x5C5C5C5C5C5C5C5C, X9)  // \
	BROADCAST(0x7575757575757575, X10) // u
	BROADCAST(0xC0C0C0C0C0C0C0C0, X11) // -64
	BROADCAST(0xEFEFEFEFEFEFEFEF, X12) // -17
	BROADCAST(0xF8F8F8F8F8F8F8F8, X13) // -8

loop:
	CMPQ SI, DI
	JHI  more
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	// One byte with its high bit set for any byte that is not ASCII, a
	// quote or a backslash.
	MOVO X0, X4
	POR  X1, X4
	POR  X2, X4
	POR  X3, X4
	MOVO X0, X5; PCMPEQB X8, X5; POR X5, X4
	MOVO X1, X5; PCMPEQB X8, X5; POR X5, X4
	MOVO X2, X5; PCMPEQB X8, X5; POR X5, X4
	MOVO X3, X5; PCMPEQB X8, X5; POR X5, X4
	MOVO X0, X5; PCMPEQB X9, X5; POR X5, X4
	MOVO X1, X5; PCMPEQB X9, X5; POR X5, X4
	MOVO X2, X5; PCMPEQB X9, X5; POR X5, X4
	MOVO X3, X5; PCMPEQB X9, X5; POR X5, X4
	PMOVMSKB X4, AX
	ORQ  R10, AX
	JNZ  block
	ADDQ $64, R9
	ADDQ $64, SI
	JMP  loop

block:
	// E, the escaped bytes, into CX; the carry into R10.
	MASK(X9, BX)
	MOVQ R10, AX
	NOTQ AX
	ANDQ AX, BX         // a backslash the block before escapes escapes nothing
	MOVQ BX, DX
	SHLQ $1, DX
	ORQ  R10, DX        // DX: the bytes that follow a backslash
	MOVQ $0xAAAAAAAAAAAAAAAA, CX
	ANDQ BX, CX
	MOVQ DX, AX
	NOTQ AX
	ANDQ AX, CX         // CX: the runs of backslashes that start on an odd byte
	XORQ R10, R10
	ADDQ BX, CX         // each run carried to the byte past its end
	ADCQ $0, R10        // a run that goes past the block
	SHLQ $1, CX
	MOVQ $0x5555555555555555, AX
	XORQ CX, AX
	ANDQ DX, AX
	MOVQ AX, CX         // CX: E

	// DX: the escaped u bytes and bytes that are not ASCII, EscapedLen's
	// case (the scan stops, slow) if one comes before the string's end.
	HIGH(R13)
	MASK(X10, BX)
	ORQ  R13, BX
	ANDQ CX, BX
	MOVQ BX, DX

	// The first quote not escaped closes the string.
	MASK(X8, BX)
	MOVQ CX, AX
	NOTQ AX
	ANDQ AX, BX
	JNZ  closed
	TESTQ DX, DX
	JNZ  slow

	ORQ     CX, R11
	POPCNTQ CX, DX
	SUBQ    DX, R9
	ADDQ    $64, R9
	TESTQ   R13, R13
	JZ      next
	BITS(CONT1, BX)
	POPCNTQ BX, DX
	SUBQ    DX, R9
	BITS(LEAD1, BX)
	POPCNTQ BX, DX
	ADDQ    DX, R9

next:
	ADDQ $64, SI
	JMP  loop

closed:
	// BX: the quotes; CX becomes k, the first; AX the bytes before it.
	BSFQ BX, BX
	MOVQ CX, R12
	MOVQ BX, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	TESTQ AX, DX
	JNZ  slow
	ADDQ CX, R9
	MOVQ SI, DX
	SUBQ R8, DX
	ADDQ CX, DX
	MOVQ DX, i+16(FP)
	ANDQ AX, R12
	ORQ  R12, R11
	POPCNTQ R12, DX
	SUBQ DX, R9
	ANDQ AX, R13
	JZ   done
	BITS(CONT1, BX)
	ANDQ AX, BX
	POPCNTQ BX, DX
	SUBQ DX, R9
	BITS(LEAD1, BX)
	ANDQ AX, BX
	POPCNTQ BX, DX
	ADDQ DX, R9

done:
	MOVQ R9, units+24(FP)
	MOVQ $0, carry+32(FP)
	MOVQ $1, AX         // closed
	JMP  flags

slow:
	MOVQ $0, i+16(FP)
	MOVQ $0, units+24(FP)
	MOVQ $0, carry+32(FP)
	MOVQ $2, flags+40(FP) // slow
	RET

more:
	MOVQ SI, DX
	SUBQ R8, DX
	MOVQ DX, i+16(FP)
	// The backslash that escapes the next block's first byte counted one
	// unit here; the words that go on count that byte one (a backslash
	// and the byte it escapes are one unit).
	SUBQ R10, R9
	ORQ  R10, R11       // and it is an escape met
	MOVQ R9, units+24(FP)
	SHLQ $7, R10
	MOVQ R10, carry+32(FP)
	MOVQ $0, AX         // more

flags:
	TESTQ R11, R11
	JZ    plain
	ORQ   $0x100, AX    // escFlag
plain:
	MOVQ AX, flags+40(FP)
	RET

// func cpuid1ECX() uint32
TEXT ·cpuid1ECX(SB), NOSPLIT, $0-4
	MOVL $1, AX
	XORL CX, CX
	CPUID
	MOVL CX, ret+0(FP)
	RET
