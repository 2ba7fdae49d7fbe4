//go:build amd64 && !purego

#include "textflag.h"

// The block scan of a string's body (see scanBlocks in blocks_amd64.go),
// 64 bytes a block in four SSE2 registers X0–X3, or in two AVX2 registers
// Y0–Y1 where the processor has AVX2 (the same steps, half the
// instructions):
//
//   - A block with no quote, no backslash, no raw control character and
//     no byte that is not ASCII, and not escaped by the block before it,
//     counts 64 units: one test.
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
//   - A raw control character (below 0x20) before the closing quote, or
//     an escaped byte other than " \ n t (and u, above), is sent to the
//     two passes too, which check the string as strict JSON.
//
// Registers: SI the block, DI the last block's start, R8 the body's
// start, R9 the units, R10 the carry (1: the block's first byte is
// escaped), R11 the escapes met, R13 H; AX BX CX DX R12 R14 scratch
// (R14 and X15 are free in an ABI0 function: its wrapper restores them);
// X8–X13 (Y8–Y13) the bytes compared with, broadcast; X14 0x1F (Y15
// 0x20), and X6 X7 n and t.

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

// CTRL1 flags, in X4, the bytes of x that are 0x1F or below: unsigned
// min(x, 0x1F) is x.
#define CTRL1(x) MOVO X14, X4; PMINUB x, X4; PCMPEQB x, X4

#define BITS(F, dst) \
	F(X0); PMOVMSKB X4, dst; \
	F(X1); PMOVMSKB X4, R12; SHLQ $16, R12; ORQ R12, dst; \
	F(X2); PMOVMSKB X4, R12; SHLQ $32, R12; ORQ R12, dst; \
	F(X3); PMOVMSKB X4, R12; SHLQ $48, R12; ORQ R12, dst

#define BROADCAST(b, x) MOVQ $b, AX; MOVQ AX, x; PUNPCKLQDQ x, x

#define BROADCASTY(b, y) MOVQ $b, AX; MOVQ AX, X4; VPBROADCASTB X4, y

// YMASK sets dst to one bit for each byte of the two halves lo and hi
// whose high bit is set (the compares' results, or the bytes themselves).
#define YMASK(lo, hi, dst) \
	VPMOVMSKB lo, dst; \
	VPMOVMSKB hi, R12; SHLQ $32, R12; ORQ R12, dst

// YCONT and YLEAD: the continuation bytes and the four-byte leads of Y0
// and Y1, as CONT1 and LEAD1 find them.
#define YCONT(dst) \
	VPCMPGTB Y0, Y11, Y6; VPCMPGTB Y1, Y11, Y7; YMASK(Y6, Y7, dst)
#define YLEAD(dst) \
	VPCMPGTB Y12, Y0, Y6; VPCMPGTB Y0, Y13, Y14; VPAND Y14, Y6, Y6; \
	VPCMPGTB Y12, Y1, Y7; VPCMPGTB Y1, Y13, Y14; VPAND Y14, Y7, Y7; \
	YMASK(Y6, Y7, dst)


// ESCAPED sets CX to E, the escaped bytes of the block, from BX, its
// backslashes, and R10, the carry from the block before (R10 becomes the
// carry out): each run of backslashes that starts on an odd byte is
// carried to the byte past its end, and the bytes so reached from an odd
// start and from an even one are told apart by their parity.
#define ESCAPED \
	MOVQ R10, AX; NOTQ AX; \
	ANDQ AX, BX; /* a backslash the block before escapes escapes nothing */ \
	MOVQ BX, DX; SHLQ $1, DX; ORQ R10, DX; /* DX: the bytes that follow a backslash */ \
	MOVQ $0xAAAAAAAAAAAAAAAA, CX; ANDQ BX, CX; \
	MOVQ DX, AX; NOTQ AX; ANDQ AX, CX; /* the runs that start on an odd byte */ \
	XORQ R10, R10; \
	ADDQ BX, CX; ADCQ $0, R10; /* a run that goes past the block */ \
	SHLQ $1, CX; \
	MOVQ $0x5555555555555555, AX; XORQ CX, AX; ANDQ DX, AX; \
	MOVQ AX, CX

// OPEN_BLOCK: the block with E in CX, the quotes in BX and EscapedLen's
// case (escaped u bytes and bytes that are not ASCII) in DX. The first
// quote not escaped closes the string (to closed); EscapedLen's case
// anywhere in a block the string does not end in stops the scan (slow);
// otherwise the block's 64 bytes count one unit each less one for each
// escape.
#define OPEN_BLOCK(closed, slow) \
	MOVQ CX, AX; NOTQ AX; ANDQ AX, BX; \
	JNZ closed; \
	TESTQ DX, DX; \
	JNZ slow; \
	ORQ CX, R11; \
	POPCNTQ CX, DX; SUBQ DX, R9; ADDQ $64, R9

// CLOSE_BLOCK: the string ends at the first quote of BX, k. EscapedLen's
// case before it stops the scan (slow); otherwise the bytes before it
// count as in OPEN_BLOCK, i is where it ends, and AX keeps the mask of
// the bytes before k for the count of continuation bytes and leads.
#define CLOSE_BLOCK(slow) \
	BSFQ BX, BX; \
	MOVQ CX, R12; \
	MOVQ BX, CX; \
	MOVQ $1, AX; SHLQ CX, AX; DECQ AX; \
	TESTQ AX, DX; \
	JNZ slow; \
	ADDQ CX, R9; \
	MOVQ SI, DX; SUBQ R8, DX; ADDQ CX, DX; MOVQ DX, i+24(FP); \
	ANDQ AX, R12; ORQ R12, R11; \
	POPCNTQ R12, DX; SUBQ DX, R9

// COUNT_WIDE counts a unit less for each continuation byte of c and one
// more for each four-byte lead of l (a surrogate pair).
#define COUNT_WIDE(c, l) \
	POPCNTQ c, DX; SUBQ DX, R9; \
	POPCNTQ l, DX; ADDQ DX, R9

// func scanBlocks(p *byte, n int, avx2 bool) (i int, units int64, carry uint64, flags uint64)
TEXT ·scanBlocks(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DI
	MOVQ SI, R8
	LEAQ -64(SI)(DI*1), DI
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	CMPB avx2+16(FP), $0
	JNE  avx2
	BROADCAST(0x2222222222222222, X8)  // "
	BROADCAST(0x5C5C5C5C5C5C5C5C, X9)  // \
	BROADCAST(0x7575757575757575, X10) // u
	BROADCAST(0xC0C0C0C0C0C0C0C0, X11) // -64
	BROADCAST(0xEFEFEFEFEFEFEFEF, X12) // -17
	BROADCAST(0xF8F8F8F8F8F8F8F8, X13) // -8
	BROADCAST(0x1F1F1F1F1F1F1F1F, X14) // the last control character
	BROADCAST(0x6E6E6E6E6E6E6E6E, X6)  // n
	BROADCAST(0x7474747474747474, X7)  // t

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
	// And for any control character: the bytes' unsigned minimum is
	// 0x1F or below.
	MOVO X0, X5; PMINUB X1, X5; PMINUB X2, X5; PMINUB X3, X5
	MOVO X14, X15; PMINUB X5, X15; PCMPEQB X5, X15; POR X15, X4
	PMOVMSKB X4, AX
	ORQ  R10, AX
	JNZ  block
	ADDQ $64, R9
	ADDQ $64, SI
	JMP  loop

block:
	MASK(X9, BX)
	ESCAPED
	HIGH(R13)
	MASK(X10, BX)
	ORQ  R13, BX
	ANDQ CX, BX
	MOVQ BX, DX
	BITS(CTRL1, R14)
	ORQ  R14, DX
	TESTQ CX, CX
	JZ   sseplain
	// The escapes the block takes in stride: \" \\ \n \t.
	MASK(X8, R14)
	MASK(X9, BX); ORQ BX, R14
	MASK(X6, BX); ORQ BX, R14
	MASK(X7, BX); ORQ BX, R14
	NOTQ R14; ANDQ CX, R14; ORQ R14, DX

sseplain:
	MASK(X8, BX)
	OPEN_BLOCK(closed, slow)
	TESTQ R13, R13
	JZ    next
	BITS(CONT1, BX)
	BITS(LEAD1, R13)
	COUNT_WIDE(BX, R13)

next:
	ADDQ $64, SI
	JMP  loop

closed:
	CLOSE_BLOCK(slow)
	ANDQ AX, R13
	JZ   done
	BITS(CONT1, BX)
	ANDQ AX, BX
	BITS(LEAD1, R13)
	ANDQ AX, R13
	COUNT_WIDE(BX, R13)
	JMP  done

// The same with AVX2, 32 bytes a register: Y0 and Y1 the block, Y2 and
// Y4 its quotes, Y3 and Y5 its backslashes, kept from the first test
// for the masks.
avx2:
	BROADCASTY(0x22, Y8)  // "
	BROADCASTY(0x5C, Y9)  // \
	BROADCASTY(0x75, Y10) // u
	BROADCASTY(0xC0, Y11) // -64
	BROADCASTY(0xEF, Y12) // -17
	BROADCASTY(0xF8, Y13) // -8
	BROADCASTY(0x20, Y15) // the first byte that is no control character

avx2loop:
	CMPQ SI, DI
	JHI  avx2more
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y8, Y0, Y2
	VPCMPEQB Y8, Y1, Y4
	VPCMPEQB Y9, Y0, Y3
	VPCMPEQB Y9, Y1, Y5
	VPOR Y2, Y3, Y6
	VPOR Y4, Y5, Y7
	// Below 0x20 as signed bytes: a control character, or a byte that
	// is not ASCII.
	VPCMPGTB Y0, Y15, Y14
	VPOR Y14, Y6, Y6
	VPCMPGTB Y1, Y15, Y14
	VPOR Y14, Y7, Y7
	VPOR Y6, Y7, Y6
	VPMOVMSKB Y6, AX
	ORQ  R10, AX
	JNZ  avx2block
	ADDQ $64, R9
	ADDQ $64, SI
	JMP  avx2loop

avx2block:
	YMASK(Y3, Y5, BX)
	ESCAPED
	YMASK(Y0, Y1, R13)
	VPCMPEQB Y10, Y0, Y6
	VPCMPEQB Y10, Y1, Y7
	YMASK(Y6, Y7, BX)
	ORQ  R13, BX
	ANDQ CX, BX
	MOVQ BX, DX
	VPCMPGTB Y0, Y15, Y6
	VPCMPGTB Y1, Y15, Y7
	YMASK(Y6, Y7, R14)
	MOVQ R13, AX; NOTQ AX; ANDQ AX, R14 // less the bytes that are not ASCII
	ORQ  R14, DX
	TESTQ CX, CX
	JZ   avx2plain
	// The escapes the block takes in stride: \" \\ \n \t.
	YMASK(Y2, Y4, R14)
	YMASK(Y3, Y5, BX); ORQ BX, R14
	MOVQ $0x6E, AX; MOVQ AX, X6; VPBROADCASTB X6, Y6
	VPCMPEQB Y6, Y0, Y7; VPCMPEQB Y6, Y1, Y6; YMASK(Y7, Y6, BX); ORQ BX, R14
	MOVQ $0x74, AX; MOVQ AX, X6; VPBROADCASTB X6, Y6
	VPCMPEQB Y6, Y0, Y7; VPCMPEQB Y6, Y1, Y6; YMASK(Y7, Y6, BX); ORQ BX, R14
	NOTQ R14; ANDQ CX, R14; ORQ R14, DX

avx2plain:
	YMASK(Y2, Y4, BX)
	OPEN_BLOCK(avx2closed, avx2slow)
	TESTQ R13, R13
	JZ    avx2next
	YCONT(BX)
	YLEAD(R13)
	COUNT_WIDE(BX, R13)

avx2next:
	ADDQ $64, SI
	JMP  avx2loop

avx2closed:
	CLOSE_BLOCK(avx2slow)
	ANDQ AX, R13
	JZ   avx2done
	YCONT(BX)
	ANDQ AX, BX
	YLEAD(R13)
	ANDQ AX, R13
	COUNT_WIDE(BX, R13)

avx2done:
	VZEROUPPER
	JMP done

avx2slow:
	VZEROUPPER
	JMP slow

avx2more:
	VZEROUPPER
	JMP more

done:
	MOVQ R9, units+32(FP)
	MOVQ $0, carry+40(FP)
	MOVQ $1, AX         // closed
	JMP  flags

slow:
	MOVQ $0, i+24(FP)
	MOVQ $0, units+32(FP)
	MOVQ $0, carry+40(FP)
	MOVQ $2, flags+48(FP) // slow
	RET

more:
	MOVQ SI, DX
	SUBQ R8, DX
	MOVQ DX, i+24(FP)
	// The backslash that escapes the next block's first byte counted one
	// unit here; the words that go on count that byte one (a backslash
	// and the byte it escapes are one unit).
	SUBQ R10, R9
	ORQ  R10, R11       // and it is an escape met
	MOVQ R9, units+32(FP)
	SHLQ $7, R10
	MOVQ R10, carry+40(FP)
	MOVQ $0, AX         // more

flags:
	TESTQ R11, R11
	JZ    plain
	ORQ   $0x100, AX    // escFlag
plain:
	MOVQ AX, flags+48(FP)
	RET

// func cpuid(leaf, sub uint32) (ax, bx, cx, dx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, ax+8(FP)
	MOVL BX, bx+12(FP)
	MOVL CX, cx+16(FP)
	MOVL DX, dx+20(FP)
	RET

// func xgetbv0() uint32
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	XORL CX, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET
