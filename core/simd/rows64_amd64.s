#include "textflag.h"

// Rows of n float32 entries at X + rows[k]·4n (BX = rows, or 0 for rows
// nil: consecutive rows from X). Both kernels take 4 entries a step in one
// ymm (VCVTPS2PD widens exactly), then the last n mod 4 one at a time;
// every product is rounded before it is added (VMULPD, VADDPD: no FMA).

// ROWSETUP: from n (DX) and X (SI), R9 = the entries in whole steps, R10
// the tail's, DX = a row's bytes, R8 = the first row.
#define ROWSETUP \
	MOVQ DX, R9  \
	ANDQ $-4, R9 \
	MOVQ DX, R10 \
	ANDQ $3, R10 \
	SHLQ $2, DX  \
	MOVQ SI, R8

// ROWPTR: R8 = row rows[k] when BX ≠ 0 (then BX steps to rows[k+1]);
// else R8 is already there (the loop steps it by DX).
#define ROWPTR \
	TESTQ   BX, BX         \
	JZ      5(PC)          \
	MOVLQSX (BX), AX       \
	IMULQ   DX, AX         \
	LEAQ    (SI)(AX*1), R8 \
	ADDQ    $4, BX

// func dotRows64x4AVX2(dst *float64, X *float32, n int, rows *int32, m int, w *float64)
// One ymm accumulator holds lanes s0..s3; the tail adds into s0 after s2
// and s3 were taken out (a VEX scalar op clears the upper half); then
// (s0 + s1) + (s2 + s3).
TEXT ·dotRows64x4AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ X+8(FP), SI
	MOVQ n+16(FP), DX
	MOVQ rows+24(FP), BX
	MOVQ m+32(FP), CX
	MOVQ w+40(FP), R11
	ROWSETUP

dotrow:
	ROWPTR
	MOVQ   R8, AX
	MOVQ   R11, R12
	VXORPD Y0, Y0, Y0
	MOVQ   R9, R13
	TESTQ  R13, R13
	JZ     dotquadsdone

dotquads:
	VCVTPS2PD (AX), Y1
	VMULPD    (R12), Y1, Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $16, AX
	ADDQ      $32, R12
	SUBQ      $4, R13
	JNZ       dotquads

dotquadsdone:
	VEXTRACTF128 $1, Y0, X2 // s2, s3
	MOVQ         R10, R13
	TESTQ        R13, R13
	JZ           dotsum

dottail:
	VCVTSS2SD (AX), X1, X1
	VMULSD    (R12), X1, X1
	VADDSD    X1, X0, X0    // s0; s1 stays in the upper lane
	ADDQ      $4, AX
	ADDQ      $8, R12
	DECQ      R13
	JNZ       dottail

dotsum:
	VHADDPD X0, X0, X0 // s0 + s1
	VHADDPD X2, X2, X2 // s2 + s3
	VADDSD  X2, X0, X0
	VMOVSD  X0, (DI)
	ADDQ    $8, DI
	ADDQ    DX, R8
	DECQ    CX
	JNZ     dotrow
	VZEROUPPER
	RET

// func axpyRows64AVX2(dst *float64, X *float32, n int, rows *int32, m int, a *float64)
TEXT ·axpyRows64AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ X+8(FP), SI
	MOVQ n+16(FP), DX
	MOVQ rows+24(FP), BX
	MOVQ m+32(FP), CX
	MOVQ a+40(FP), R11
	ROWSETUP

axpyrow:
	ROWPTR
	VBROADCASTSD (R11), Y5
	MOVQ         R8, AX
	MOVQ         DI, R12
	MOVQ         R9, R13
	TESTQ        R13, R13
	JZ           axpyquadsdone

axpyquads:
	VCVTPS2PD (AX), Y1
	VMULPD    Y5, Y1, Y1
	VADDPD    (R12), Y1, Y1
	VMOVUPD   Y1, (R12)
	ADDQ      $16, AX
	ADDQ      $32, R12
	SUBQ      $4, R13
	JNZ       axpyquads

axpyquadsdone:
	MOVQ  R10, R13
	TESTQ R13, R13
	JZ    axpynext

axpytail:
	VCVTSS2SD (AX), X1, X1
	VMULSD    X5, X1, X1
	VADDSD    (R12), X1, X1
	VMOVSD    X1, (R12)
	ADDQ      $4, AX
	ADDQ      $8, R12
	DECQ      R13
	JNZ       axpytail

axpynext:
	ADDQ $8, R11
	ADDQ DX, R8
	DECQ CX
	JNZ  axpyrow
	VZEROUPPER
	RET
