#include "textflag.h"

// func lineMasksAVX2(cur, prev *byte, chunks int, m *lineMasks)
//
// For each of chunks 32-byte blocks at cur (and prev), writes one bit per
// byte into the uint32 at index chunk of each of m's five [4]uint32 fields:
// ns (byte != ' '), chg (cur byte != prev byte), bad (byte < 0x20 or
// >= 0x7f), spec (byte is '"', '#', '\'', ';' or '_') and under (byte is
// '_').
TEXT ·lineMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ cur+0(FP), SI
	MOVQ prev+8(FP), DI
	MOVQ chunks+16(FP), CX
	MOVQ m+24(FP), DX

	MOVQ $0x2020202020202020, AX
	MOVQ AX, X8
	VPBROADCASTQ X8, Y8 // ' '
	MOVQ $0x7f7f7f7f7f7f7f7f, AX
	MOVQ AX, X9
	VPBROADCASTQ X9, Y9 // 0x7f
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X10
	VPBROADCASTQ X10, Y10 // '"'
	MOVQ $0x2323232323232323, AX
	MOVQ AX, X11
	VPBROADCASTQ X11, Y11 // '#'
	MOVQ $0x2727272727272727, AX
	MOVQ AX, X12
	VPBROADCASTQ X12, Y12 // '\''
	MOVQ $0x3b3b3b3b3b3b3b3b, AX
	MOVQ AX, X13
	VPBROADCASTQ X13, Y13 // ';'
	MOVQ $0x5f5f5f5f5f5f5f5f, AX
	MOVQ AX, X14
	VPBROADCASTQ X14, Y14 // '_'

	XORQ R8, R8

loop:
	VMOVDQU (SI), Y0
	VMOVDQU (DI), Y1
	VPCMPEQB Y0, Y8, Y2
	VPMOVMSKB Y2, AX
	NOTL AX
	MOVL AX, 0(DX)(R8*4)
	VPCMPEQB Y0, Y1, Y3
	VPMOVMSKB Y3, BX
	NOTL BX
	MOVL BX, 16(DX)(R8*4)
	VPCMPGTB Y0, Y8, Y4 // 0x20 > byte, signed: controls and bytes >= 0x80
	VPCMPEQB Y0, Y9, Y5
	VPOR Y4, Y5, Y4
	VPMOVMSKB Y4, R9
	MOVL R9, 32(DX)(R8*4)
	VPCMPEQB Y0, Y10, Y5
	VPCMPEQB Y0, Y11, Y6
	VPOR Y5, Y6, Y5
	VPCMPEQB Y0, Y12, Y6
	VPOR Y5, Y6, Y5
	VPCMPEQB Y0, Y13, Y6
	VPOR Y5, Y6, Y5
	VPCMPEQB Y0, Y14, Y7
	VPOR Y5, Y7, Y5
	VPMOVMSKB Y5, R10
	MOVL R10, 48(DX)(R8*4)
	VPMOVMSKB Y7, R11
	MOVL R11, 64(DX)(R8*4)
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ R8
	CMPQ R8, CX
	JLT loop
	VZEROUPPER
	RET
