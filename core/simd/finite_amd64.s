#include "textflag.h"

// func finiteLenAVX2(x *float32, n int) int
// 32 values a step: each value's exponent bits (VPAND) compared with all
// ones (VPCMPEQD), the four vectors' results or-ed and tested at once.
TEXT ·finiteLenAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	MOVL $0x7f800000, DX
	MOVL DX, X0
	VPBROADCASTD X0, Y0

loop:
	VPAND    (SI)(AX*4), Y0, Y1
	VPAND    32(SI)(AX*4), Y0, Y2
	VPAND    64(SI)(AX*4), Y0, Y3
	VPAND    96(SI)(AX*4), Y0, Y4
	VPCMPEQD Y0, Y1, Y1
	VPCMPEQD Y0, Y2, Y2
	VPCMPEQD Y0, Y3, Y3
	VPCMPEQD Y0, Y4, Y4
	VPOR     Y1, Y2, Y1
	VPOR     Y3, Y4, Y3
	VPOR     Y1, Y3, Y1
	VPTEST   Y1, Y1
	JNZ      done
	ADDQ     $32, AX
	CMPQ     AX, CX
	JB       loop

done:
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET
