#include "textflag.h"

// the bytes the routines compare with, broadcast to every byte of a register
DATA blank<>+0(SB)/8, $0x2020202020202020
GLOBL blank<>(SB), RODATA|NOPTR, $8
DATA del<>+0(SB)/8, $0x7f7f7f7f7f7f7f7f
GLOBL del<>(SB), RODATA|NOPTR, $8
DATA dquote<>+0(SB)/8, $0x2222222222222222
GLOBL dquote<>(SB), RODATA|NOPTR, $8
DATA hash<>+0(SB)/8, $0x2323232323232323
GLOBL hash<>(SB), RODATA|NOPTR, $8
DATA squote<>+0(SB)/8, $0x2727272727272727
GLOBL squote<>(SB), RODATA|NOPTR, $8
DATA semi<>+0(SB)/8, $0x3b3b3b3b3b3b3b3b
GLOBL semi<>(SB), RODATA|NOPTR, $8
DATA under<>+0(SB)/8, $0x5f5f5f5f5f5f5f5f
GLOBL under<>(SB), RODATA|NOPTR, $8
DATA newline<>+0(SB)/8, $0x0a0a0a0a0a0a0a0a
GLOBL newline<>(SB), RODATA|NOPTR, $8

// func lineMasksAVX2(cur, prev *byte, pairs int, m *lineMasks)
//
// For each of pairs 64-byte blocks at cur (and prev), writes one bit per
// byte into the uint64 at index pair of each of m's five [2]uint64 fields:
// ns (byte != ' '), chg (cur byte != prev byte), bad (byte < 0x20 or
// >= 0x7f), spec (byte is '"', '#', '\'', ';' or '_') and under (byte is
// '_'). Each word is stored whole, so that the Go code's loads of it are
// forwarded from the store.
TEXT ·lineMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ cur+0(FP), SI
	MOVQ prev+8(FP), DI
	MOVQ pairs+16(FP), CX
	MOVQ m+24(FP), DX

	VPBROADCASTQ blank<>(SB), Y8 // ' '
	VPBROADCASTQ del<>(SB), Y9 // 0x7f
	VPBROADCASTQ dquote<>(SB), Y10 // '"'
	VPBROADCASTQ hash<>(SB), Y11 // '#'
	VPBROADCASTQ squote<>(SB), Y12 // '\''
	VPBROADCASTQ semi<>(SB), Y13 // ';'
	VPBROADCASTQ under<>(SB), Y14 // '_'

	XORQ R8, R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	// ns
	VPCMPEQB Y0, Y8, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB Y1, Y8, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, AX
	NOTQ AX
	MOVQ AX, 0(DX)(R8*8)
	// chg
	VPCMPEQB (DI), Y0, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB 32(DI), Y1, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, AX
	NOTQ AX
	MOVQ AX, 16(DX)(R8*8)
	// bad: 0x20 > byte (signed: controls and bytes >= 0x80), or 0x7f
	VPCMPGTB Y0, Y8, Y2
	VPCMPEQB Y0, Y9, Y3
	VPOR Y2, Y3, Y2
	VPMOVMSKB Y2, AX
	VPCMPGTB Y1, Y8, Y2
	VPCMPEQB Y1, Y9, Y3
	VPOR Y2, Y3, Y2
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 32(DX)(R8*8)
	// under, then spec
	VPCMPEQB Y0, Y14, Y4
	VPCMPEQB Y1, Y14, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 64(DX)(R8*8)
	VPCMPEQB Y0, Y10, Y2
	VPOR Y4, Y2, Y4
	VPCMPEQB Y0, Y11, Y2
	VPOR Y4, Y2, Y4
	VPCMPEQB Y0, Y12, Y2
	VPOR Y4, Y2, Y4
	VPCMPEQB Y0, Y13, Y2
	VPOR Y4, Y2, Y4
	VPCMPEQB Y1, Y10, Y2
	VPOR Y5, Y2, Y5
	VPCMPEQB Y1, Y11, Y2
	VPOR Y5, Y2, Y5
	VPCMPEQB Y1, Y12, Y2
	VPOR Y5, Y2, Y5
	VPCMPEQB Y1, Y13, Y2
	VPOR Y5, Y2, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 48(DX)(R8*8)
	ADDQ $64, SI
	ADDQ $64, DI
	INCQ R8
	CMPQ R8, CX
	JLT loop
	VZEROUPPER
	RET

// func countPlainAVX2(p *byte, blocks int) (tokens, done int, last uint32)
//
// Counts the values in the 32-byte blocks at p, one block after the other,
// while a block holds only printable ASCII that can be part of a plain
// value, spaces and newlines (no control byte, no byte >= 0x7f, no '"',
// '#', '\'', ';' or '_'): tokens is the number of value starts (a
// non-blank byte at p or after a blank), done the blocks counted, last 1
// when the last counted byte is not blank (a value runs on past them). A
// value must start at p (whatever the byte before it).
TEXT ·countPlainAVX2(SB), NOSPLIT, $0-36
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX

	VPBROADCASTQ blank<>(SB), Y8 // ' '
	VPBROADCASTQ newline<>(SB), Y9 // '\n'
	VPBROADCASTQ del<>(SB), Y15 // 0x7f
	VPBROADCASTQ dquote<>(SB), Y10 // '"'
	VPBROADCASTQ hash<>(SB), Y11 // '#'
	VPBROADCASTQ squote<>(SB), Y12 // '\''
	VPBROADCASTQ semi<>(SB), Y13 // ';'
	VPBROADCASTQ under<>(SB), Y14 // '_'

	XORQ AX, AX // tokens
	XORQ BX, BX // blocks done
	XORL R9, R9 // the previous byte is not blank

cloop:
	CMPQ BX, CX
	JGE cdone
	VMOVDQU (SI), Y0
	VPCMPEQB Y0, Y8, Y1 // ' '
	VPCMPEQB Y0, Y9, Y2 // '\n'
	VPCMPGTB Y0, Y8, Y3 // 0x20 > byte, signed: controls (with '\n') and bytes >= 0x80
	VPXOR Y2, Y3, Y3    // without '\n' (a '\n' is in both)
	VPCMPEQB Y0, Y15, Y4
	VPOR Y3, Y4, Y3
	VPCMPEQB Y0, Y10, Y4
	VPOR Y3, Y4, Y3
	VPCMPEQB Y0, Y11, Y4
	VPOR Y3, Y4, Y3
	VPCMPEQB Y0, Y12, Y4
	VPOR Y3, Y4, Y3
	VPCMPEQB Y0, Y13, Y4
	VPOR Y3, Y4, Y3
	VPCMPEQB Y0, Y14, Y4
	VPOR Y3, Y4, Y3
	VPTEST Y3, Y3
	JNZ cdone
	VPOR Y1, Y2, Y1
	VPMOVMSKB Y1, DX // blanks
	NOTL DX          // not blank
	MOVL DX, R10
	SHLL $1, R10
	ORL R9, R10
	NOTL R10
	ANDL DX, R10     // value starts
	POPCNTL R10, R10
	ADDQ R10, AX
	MOVL DX, R9
	SHRL $31, R9
	ADDQ $32, SI
	INCQ BX
	JMP cloop

cdone:
	VZEROUPPER
	MOVQ AX, tokens+16(FP)
	MOVQ BX, done+24(FP)
	MOVL R9, last+32(FP)
	RET
