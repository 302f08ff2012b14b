#include "textflag.h"

// func axpySquaresRowsAVX2(grad, diag *float64, X *float32, n int, rows *int32, lo, hi int, a, b *float64, bScale float64)
//
// Row i = rows[k] (or k) at X + 4n·i: 4 entries a step in one ymm
// (VCVTPS2PD widens exactly), g += a_i·x and D += (b_i·x)·x with b_i =
// bScale·b[i], then the last n mod 4 one at a time; every product is
// rounded before it is added (VMULPD, VADDPD: no FMA).
TEXT ·axpySquaresRowsAVX2(SB), NOSPLIT, $0-80
	MOVQ grad+0(FP), DI
	MOVQ diag+8(FP), SI
	MOVQ X+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ rows+32(FP), BX
	MOVQ lo+40(FP), CX
	MOVQ a+56(FP), R10
	MOVQ b+64(FP), R11
	VMOVSD bScale+72(FP), X6
	MOVQ R9, R12
	SHLQ $2, R12                // a row's bytes

row:
	CMPQ CX, hi+48(FP)
	JGE  done
	MOVQ CX, AX
	TESTQ BX, BX
	JZ   2(PC)
	MOVLQSX (BX)(CX*4), AX      // i
	VBROADCASTSD (R10)(AX*8), Y4 // a_i
	VMULSD (R11)(AX*8), X6, X5
	VBROADCASTSD X5, Y5         // b_i
	MOVQ AX, DX
	IMULQ R12, DX
	LEAQ (R8)(DX*1), DX         // x_i
	XORQ R13, R13               // j
	MOVQ R9, R14
	ANDQ $-4, R14

quads:
	CMPQ R13, R14
	JGE  tail
	VCVTPS2PD (DX)(R13*4), Y1
	VMULPD Y4, Y1, Y2
	VADDPD (DI)(R13*8), Y2, Y2
	VMOVUPD Y2, (DI)(R13*8)
	VMULPD Y5, Y1, Y3
	VMULPD Y1, Y3, Y3
	VADDPD (SI)(R13*8), Y3, Y3
	VMOVUPD Y3, (SI)(R13*8)
	ADDQ $4, R13
	JMP  quads

tail:
	CMPQ R13, R9
	JGE  next
	VCVTSS2SD (DX)(R13*4), X1, X1
	VMULSD X4, X1, X2
	VADDSD (DI)(R13*8), X2, X2
	VMOVSD X2, (DI)(R13*8)
	VMULSD X5, X1, X3
	VMULSD X1, X3, X3
	VADDSD (SI)(R13*8), X3, X3
	VMOVSD X3, (SI)(R13*8)
	INCQ R13
	JMP  tail

next:
	INCQ CX
	JMP  row

done:
	VZEROUPPER
	RET
