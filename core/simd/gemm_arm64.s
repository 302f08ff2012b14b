#include "textflag.h"

// func gemm4NEON(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)
//
// Gemm's micro-kernel on arm64 NEON: four rows of A against one panel of
// 32 columns, in two halves of 16 columns (sixteen 4-lane accumulators,
// V0..V15). Each step loads 16 values of the packed column (V16..V19),
// replicates a[i][q] of the four rows (LD1R, V20..V23) and issues sixteen
// FMLAs.
TEXT ·gemm4NEON(SB), NOSPLIT, $0-56
	MOVD c+0(FP), R0
	MOVD ldc+8(FP), R1
	MOVD a+16(FP), R2
	MOVD lda+24(FP), R3
	MOVD bp+32(FP), R4
	MOVD panels+40(FP), R5
	MOVD k+48(FP), R6
	LSL  $2, R1, R1           // strides in bytes
	LSL  $2, R3, R3
	LSL  $7, R6, R14          // bytes of one panel: k·32·4

panel:
	CBZ  R5, done
	MOVD $0, R15              // half: byte offset 0 or 64

half:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	MOVD R2, R7
	ADD  R3, R7, R8
	ADD  R3, R8, R9
	ADD  R3, R9, R10
	ADD  R15, R4, R11
	MOVD R6, R12

kloop:
	VLD1   (R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD    $128, R11, R11
	VLD1R.P 4(R7), [V20.S4]
	VLD1R.P 4(R8), [V21.S4]
	VLD1R.P 4(R9), [V22.S4]
	VLD1R.P 4(R10), [V23.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V20.S4, V1.S4
	VFMLA  V18.S4, V20.S4, V2.S4
	VFMLA  V19.S4, V20.S4, V3.S4
	VFMLA  V16.S4, V21.S4, V4.S4
	VFMLA  V17.S4, V21.S4, V5.S4
	VFMLA  V18.S4, V21.S4, V6.S4
	VFMLA  V19.S4, V21.S4, V7.S4
	VFMLA  V16.S4, V22.S4, V8.S4
	VFMLA  V17.S4, V22.S4, V9.S4
	VFMLA  V18.S4, V22.S4, V10.S4
	VFMLA  V19.S4, V22.S4, V11.S4
	VFMLA  V16.S4, V23.S4, V12.S4
	VFMLA  V17.S4, V23.S4, V13.S4
	VFMLA  V18.S4, V23.S4, V14.S4
	VFMLA  V19.S4, V23.S4, V15.S4
	SUBS   $1, R12, R12
	BNE    kloop

	ADD  R15, R0, R13
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R13)
	ADD  R1, R13, R13
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R13)
	ADD  R1, R13, R13
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R13)
	ADD  R1, R13, R13
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R13)
	ADD  $64, R15, R15
	CMP  $128, R15
	BLT  half

	ADD  R14, R4, R4
	ADD  $128, R0, R0
	SUB  $1, R5, R5
	B    panel

done:
	RET
